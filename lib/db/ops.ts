// What operating the console reads and does on its database: the gauges a metrics scrape reads (runs by
// state, the run queue's jobs), the readiness probe's checks (the database answers, every migration of
// this build is applied) and the online backup of a SQLite file.
import "server-only";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { Prisma } from "../generated/sqlite/client.ts";
import { type Db, providerOf, queryRows } from "./client.ts";

/** Runs by state, every state there is (one GROUP BY on the [state, createdAt] index). */
export async function runsByState(db: Db): Promise<Record<string, number>> {
  const rows = await queryRows(db, Prisma.sql`SELECT "state", COUNT(*) AS "n" FROM "Run" GROUP BY "state"`);
  return Object.fromEntries(rows.map((r) => [String(r.state), Number(r.n)]));
}

/** Jobs of one pg-boss queue by state (created, retry, active, completed, cancelled, failed); PostgreSQL only. */
export async function queueJobsByState(db: Db, schema: string, queue: string): Promise<Record<string, number>> {
  if (providerOf(db) !== "postgresql") return {};
  const rows = await queryRows(
    db,
    Prisma.sql`SELECT "state"::text AS "state", COUNT(*) AS "n" FROM ${Prisma.raw(`"${schema.replace(/"/g, "")}"`)}."job" WHERE "name" = ${queue} GROUP BY "state"`,
  );
  return Object.fromEntries(rows.map((r) => [String(r.state), Number(r.n)]));
}

/** One round trip; throws when the database does not answer. */
export async function ping(db: Db): Promise<void> {
  await queryRows(db, Prisma.sql`SELECT 1 AS "one"`);
}

/** Names of the migrations the database has applied (finished, not rolled back). */
export async function appliedMigrations(db: Db): Promise<Set<string>> {
  const rows = await queryRows(
    db,
    Prisma.sql`SELECT "migration_name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`,
  );
  return new Set(rows.map((r) => String(r.migration_name)));
}

/** The migrations this build ships for the provider (prisma/{sqlite,postgres}/migrations); null: no such folder. */
export function shippedMigrations(provider: "sqlite" | "postgresql", root = process.cwd()): string[] | null {
  const dir = path.join(root, "prisma", provider === "postgresql" ? "postgres" : "sqlite", "migrations");
  if (!existsSync(dir)) return null;
  return readdirSync(dir)
    .filter((n) => statSync(path.join(dir, n)).isDirectory())
    .sort();
}

export type BackupResult = { source: string; file: string; bytes: number; pages: number };

/** The file a SQLite DATABASE_URL names (file:./data/afk.db, relative to the working directory). */
export const sqliteFileOf = (url: string) => path.resolve(url.replace(/^file:/, "").split("?")[0]);

/**
 * An online backup of a SQLite database file through SQLite's backup API (better-sqlite3's backup()): a
 * consistent copy of the database as of one moment while the console keeps reading and writing it. All
 * pages are copied in one step, inside one read transaction (in WAL mode writers go on meanwhile); a copy in
 * many steps would start over each time another connection wrote, which a busy console does all the time.
 * The copy is checked (PRAGMA integrity_check) before this returns.
 */
export async function backupSqliteFile(source: string, dest: string): Promise<BackupResult> {
  if (!existsSync(source)) throw new Error(`no database file at ${source}`);
  if (existsSync(dest)) throw new Error(`${dest} exists: back up to a new file`);
  const src = new Database(source, { fileMustExist: true, timeout: 10_000 });
  let pages = 0;
  try {
    await src.backup(dest, {
      progress: ({ totalPages }) => {
        pages = totalPages;
        return Math.max(totalPages, 1);
      },
    });
  } catch (e) {
    rmSync(dest, { force: true });
    throw e;
  } finally {
    src.close();
  }
  const copy = new Database(dest, { readonly: true, fileMustExist: true });
  try {
    const check = copy.pragma("integrity_check", { simple: true });
    if (check !== "ok") throw new Error(`the backup at ${dest} failed SQLite's integrity check: ${String(check)}`);
  } finally {
    copy.close();
  }
  return { source, file: dest, bytes: statSync(dest).size, pages };
}
