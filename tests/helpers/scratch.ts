// Throwaway databases for tests and benchmarks: a fresh SQLite file, or a fresh database on a PostgreSQL
// server; both migrated with the committed migrations, exactly as the app's own database is.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
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

// A test run migrates one database per provider once (migratedTemplates, vitest's globalSetup) and names
// them here; its scratch databases are then copies of those (a file copy, CREATE DATABASE … TEMPLATE)
// instead of a Prisma CLI process each, seconds of CPU over a hundred times per run. Without them (the
// benchmarks, chaos) each database is migrated itself.
const SQLITE_TEMPLATE = "AFK_TEST_SQLITE_TEMPLATE";
const POSTGRES_TEMPLATE = "AFK_TEST_POSTGRES_TEMPLATE"; // its URL

/** Migrates the templates (PostgreSQL's only with a server) and names them to this process and its children; the result drops them. */
export async function migratedTemplates(postgresBase?: string): Promise<() => Promise<void>> {
  const id = randomBytes(5).toString("hex");
  mkdirSync(path.join(root, "data/test"), { recursive: true });
  const rel = `./data/test/template-${id}.db`;
  migrate(`file:${rel}`, "prisma.config.ts");
  process.env[SQLITE_TEMPLATE] = path.join(root, rel);
  const pgName = postgresBase ? `afk_template_${id}` : null;
  if (postgresBase && pgName) {
    await admin(postgresBase, `CREATE DATABASE ${pgName}`);
    const u = new URL(postgresBase);
    u.pathname = `/${pgName}`;
    migrate(u.toString(), "prisma.postgres.config.ts");
    process.env[POSTGRES_TEMPLATE] = u.toString();
  }
  return async () => {
    for (const s of ["", "-wal", "-shm", "-journal"]) rmSync(path.join(root, rel + s), { force: true });
    if (postgresBase && pgName) await admin(postgresBase, `DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`);
  };
}

// postgresBase: a URL of a server (any database on it) where databases may be created.
export async function scratchDatabase(provider: "sqlite" | "postgresql", postgresBase?: string, prefix = "afk_test"): Promise<ScratchDb> {
  const id = randomBytes(5).toString("hex");
  if (provider === "sqlite") {
    mkdirSync(path.join(root, "data/test"), { recursive: true });
    const rel = `./data/test/${id}.db`;
    const url = `file:${rel}`;
    const template = process.env[SQLITE_TEMPLATE];
    if (template) copyFileSync(template, path.join(root, rel));
    else migrate(url, "prisma.config.ts");
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
  // The template is on the test server; a test with a server of its own (store-fault) migrates its database.
  const t = process.env[POSTGRES_TEMPLATE] ? new URL(process.env[POSTGRES_TEMPLATE]) : null;
  const template = t && t.host === new URL(postgresBase).host ? t.pathname.slice(1) : null;
  await admin(postgresBase, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
  const u = new URL(postgresBase);
  u.pathname = `/${name}`;
  const url = u.toString();
  if (!template) migrate(url, "prisma.postgres.config.ts");
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
