// Real databases for integration tests: a fresh SQLite file always, and a fresh PostgreSQL database when
// TEST_POSTGRES_URL points at a server. Both are migrated with the committed migrations, as the app is.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { createDb, type Db } from "@/lib/db/client";

const root = path.resolve(import.meta.dirname, "..");

export type TestDb = { name: "sqlite" | "postgresql"; url: string; db: Db; drop: () => Promise<void> };

export const providers: ("sqlite" | "postgresql")[] = process.env.TEST_POSTGRES_URL ? ["sqlite", "postgresql"] : ["sqlite"];

function migrate(url: string, config: string) {
  execFileSync(path.join(root, "node_modules/.bin/prisma"), ["migrate", "deploy", "--config", config], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    stdio: "pipe",
  });
}

export async function freshDatabase(provider: "sqlite" | "postgresql"): Promise<TestDb> {
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
  const base = process.env.TEST_POSTGRES_URL!;
  const name = `afk_test_${id}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(base);
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
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
