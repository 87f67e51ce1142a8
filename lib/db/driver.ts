// The runner store's hot statements, sent straight to the database driver. Through Prisma's query engine
// each statement costs 0.6-0.7 ms on this machine; through better-sqlite3 0.003 ms (a read) to 0.09 ms (a
// batch upsert), and a step makes several (scripts/bench.ts prints "Prisma vs driver"). Only the top-level
// client of a database has a driver; transaction clients go through Prisma, inside their transaction.
import "server-only";
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import type { Prisma } from "../generated/sqlite/client.ts";

export type Row = Record<string, unknown>;

export interface Driver {
  readonly provider: "sqlite" | "postgresql";
  /** Rows of a query built with Prisma.sql (placeholders and values are taken from it). */
  all(q: Prisma.Sql): Promise<Row[]>;
  /** Affected rows of a statement built with Prisma.sql. */
  run(q: Prisma.Sql): Promise<number>;
}

/**
 * better-sqlite3, on the connection Prisma's adapter opened (so nothing else of this process holds a lock
 * against it), behind the same per-file gate (lib/db/client.ts): while a Prisma transaction is open, these
 * statements wait for it instead of running inside it.
 */
export function sqliteDriver(connection: () => Promise<BetterSqlite3.Database>, gate: { open: Promise<void> | null }): Driver {
  const statements = new Map<string, BetterSqlite3.Statement>();
  let on: BetterSqlite3.Database | null = null;
  const prepared = async (q: Prisma.Sql) => {
    const conn = await connection();
    while (gate.open) await gate.open;
    if (conn !== on) {
      statements.clear();
      on = conn;
    }
    let s = statements.get(q.sql);
    if (!s) {
      // Prisma's adapter makes the connection return integers as BigInt; these statements read plain numbers.
      s = conn.prepare(q.sql).safeIntegers(false);
      if (statements.size > 200) statements.clear();
      statements.set(q.sql, s);
    }
    return s;
  };
  return {
    provider: "sqlite",
    async all(q) {
      const s = await prepared(q);
      return s.all(...q.values) as Row[];
    },
    async run(q) {
      const s = await prepared(q);
      return s.run(...q.values).changes;
    },
  };
}

/** node-postgres, on the pool Prisma's adapter uses. */
export function postgresDriver(pool: pg.Pool): Driver {
  const values = (q: Prisma.Sql) => q.values.map((v) => (typeof v === "bigint" ? v.toString() : v));
  return {
    provider: "postgresql",
    async all(q) {
      return (await pool.query(q.text, values(q))).rows;
    },
    async run(q) {
      return (await pool.query(q.text, values(q))).rowCount ?? 0;
    },
  };
}
