// Throwaway databases for tests and benchmarks: a fresh SQLite file, or a fresh database on a PostgreSQL
// server; both migrated with the committed migrations, exactly as the app's own database is.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { createDb, type Db } from "../../lib/db/client.ts";

const root = path.resolve(import.meta.dirname, "../..");

export type ScratchDb = { name: "sqlite" | "postgresql"; url: string; db: Db; drop: () => Promise<void> };

function migrate(url: string, config: string) {
  execFileSync(path.join(root, "node_modules/.bin/prisma"), ["migrate", "deploy", "--config", config], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    stdio: "pipe",
  });
}

async function admin(base: string, sql: string) {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

// postgresBase: a URL of a server (any database on it) where databases may be created.
export async function scratchDatabase(provider: "sqlite" | "postgresql", postgresBase?: string, prefix = "afk_test"): Promise<ScratchDb> {
  const id = randomBytes(5).toString("hex");
  if (provider === "sqlite") {
    mkdirSync(path.join(root, "data/test"), { recursive: true });
    const rel = `./data/test/${id}.db`;
    const url = `file:${rel}`;
    migrate(url, "prisma.config.ts");
    const db = createDb(url);
    return {
      name: provider,
      url,
      db,
      drop: async () => {
        await db.$disconnect();
        for (const s of ["", "-wal", "-shm", "-journal"]) rmSync(path.join(root, rel + s), { force: true });
      },
    };
  }
  if (!postgresBase) throw new Error("A PostgreSQL server URL is needed");
  const name = `${prefix}_${id}`;
  await admin(postgresBase, `CREATE DATABASE ${name}`);
  const u = new URL(postgresBase);
  u.pathname = `/${name}`;
  const url = u.toString();
  migrate(url, "prisma.postgres.config.ts");
  const db = createDb(url);
  return {
    name: provider,
    url,
    db,
    drop: async () => {
      await db.$disconnect();
      await admin(postgresBase, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
