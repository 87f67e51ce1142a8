// Upgrade in place, for the tests that keep databases written by earlier versions (tests/fixtures/*): a
// scratch copy of a fixture migrated to the current schema as the app does at start, and an answer's status.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { HttpError } from "@/lib/auth/errors";
import { createDb, type Db } from "@/lib/db/client";

const root = path.resolve(import.meta.dirname, "../..");

function migrate(url: string, config: string) {
  execFileSync(path.join(root, "node_modules/.bin/prisma"), ["migrate", "deploy", "--config", config], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    stdio: "pipe",
  });
}

export async function admin(sql: string) {
  const c = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A scratch copy of the fixture in `fixtures` (its sqlite.db or postgres.sql), migrated to the current schema. */
export async function fromFixture(
  fixtures: string,
  prefix: string,
  provider: "sqlite" | "postgresql",
): Promise<{ db: Db; drop: () => Promise<void> }> {
  const id = randomBytes(5).toString("hex");
  if (provider === "sqlite") {
    mkdirSync(path.join(root, "data/test"), { recursive: true });
    const rel = `./data/test/${prefix}-${id}.db`;
    copyFileSync(path.join(fixtures, "sqlite.db"), path.join(root, rel));
    migrate(`file:${rel}`, "prisma.config.ts");
    const db = createDb(`file:${rel}`);
    return {
      db,
      drop: async () => {
        await db.$disconnect();
        for (const s of ["", "-wal", "-shm", "-journal"]) rmSync(path.join(root, rel + s), { force: true });
      },
    };
  }
  const name = `afk_${prefix.replaceAll("-", "_")}_${id}`;
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(process.env.TEST_POSTGRES_URL!);
  u.pathname = `/${name}`;
  const url = u.toString();
  execFileSync("psql", ["-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", path.join(fixtures, "postgres.sql")], { stdio: "pipe" });
  migrate(url, "prisma.postgres.config.ts");
  const db = createDb(url);
  return {
    db,
    drop: async () => {
      await db.$disconnect();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** 200 for a call that succeeds, the HTTP status of one refused, the error's text otherwise. */
export const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: unknown) => (e instanceof HttpError ? e.status : String(e)),
  );
