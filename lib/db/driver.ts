// The runner store's hot statements, sent straight to the database driver. Through Prisma's query engine
// each statement costs 0.6-0.7 ms on this machine; through better-sqlite3 0.003 ms (a read) to 0.09 ms (a
// batch upsert), and a step makes several (bench/bench.ts prints "Prisma vs driver"). Only the top-level
// client of a database has a driver; transaction clients go through Prisma, inside their transaction.
import "server-only";
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { Prisma } from "../generated/sqlite/client.ts";

export type Row = Record<string, unknown>;

/** A DateTime column of a driver row: a Date (PostgreSQL), ISO text or epoch milliseconds (SQLite). */
export const dateOf = (v: unknown): Date | null =>
  v === null || v === undefined
    ? null
    : v instanceof Date
      ? v
      : new Date(typeof v === "string" && /^\d+$/.test(v) ? Number(v) : (v as string | number));

/** A Boolean column: true/false (PostgreSQL) or 1/0 (SQLite). */
export const boolOf = (v: unknown): boolean => v === true || v === 1 || v === 1n;

/**
 * A BigInt column: numeric text (PostgreSQL), a number (SQLite, exact for the epoch milliseconds these
 * columns hold, not beyond 2^53) or a bigint (Prisma's raw queries).
 */
export const bigintOf = (v: unknown): bigint | null => (v === null || v === undefined ? null : BigInt(v as string | number | bigint));

export interface Driver {
  readonly provider: "sqlite" | "postgresql";
  /** Rows of a query built with Prisma.sql (placeholders and values are taken from it). */
  all(q: Prisma.Sql): Promise<Row[]>;
  /** Affected rows of a statement built with Prisma.sql. */
  run(q: Prisma.Sql): Promise<number>;
  /**
   * The first column of each row: no row objects (better-sqlite3's pluck, node-postgres' array rows), a
   * third of the cost of all() on the 3,000 log entries a resume reads.
   */
  column(q: Prisma.Sql): Promise<unknown[]>;
}

/**
 * better-sqlite3, on the connection Prisma's adapter opened (so nothing else of this process holds a lock
 * against it), behind the same per-file gate (lib/db/adapters.ts): while a Prisma transaction is open, these
 * statements wait for it instead of running inside it. open() is that connection when it is open (else
 * null), connect() opens it.
 */
export function sqliteDriver(
  conn: { open: () => BetterSqlite3.Database | null; connect: () => Promise<BetterSqlite3.Database> },
  gate: { open: Promise<void> | null },
): Driver {
  const statements = new Map<string, BetterSqlite3.Statement>();
  let on: BetterSqlite3.Database | null = null;
  const prepare = (c: BetterSqlite3.Database, q: Prisma.Sql, pluck = false) => {
    if (c !== on) {
      statements.clear();
      on = c;
    }
    const id = pluck ? `pluck:${q.sql}` : q.sql;
    let s = statements.get(id);
    if (!s) {
      // Prisma's adapter makes the connection return integers as BigInt; these statements read plain numbers.
      s = c.prepare(q.sql).safeIntegers(false);
      if (pluck) s.pluck();
      if (statements.size > 200) statements.clear();
      statements.set(id, s);
    }
    return s;
  };
  // The statement runs at once when the connection is open and no transaction holds the gate (the check and
  // the statement in one tick, as before), else once both are so. The driver is synchronous: one promise
  // a statement, its result's (a step makes about thirteen statements).
  const exec = <T>(q: Prisma.Sql, read: (s: BetterSqlite3.Statement, values: unknown[]) => T, pluck = false): Promise<T> => {
    const c = gate.open ? null : conn.open();
    if (!c) return later(q, read, pluck);
    try {
      return Promise.resolve(read(prepare(c, q, pluck), q.values.map(sqliteValue)));
    } catch (e) {
      return Promise.reject(e);
    }
  };
  const later = async <T>(q: Prisma.Sql, read: (s: BetterSqlite3.Statement, values: unknown[]) => T, pluck: boolean): Promise<T> => {
    const c = await conn.connect();
    while (gate.open) await gate.open;
    return read(prepare(c, q, pluck), q.values.map(sqliteValue));
  };
  const all = (s: BetterSqlite3.Statement, values: unknown[]) => s.all(...values) as Row[];
  const run = (s: BetterSqlite3.Statement, values: unknown[]) => s.run(...values).changes;
  const column = (s: BetterSqlite3.Statement, values: unknown[]) => s.all(...values) as unknown[];
  return { provider: "sqlite", all: (q) => exec(q, all), run: (q) => exec(q, run), column: (q) => exec(q, column, true) };
}

// Prisma keeps DateTime in "timestamp(3) without time zone" columns, in UTC; node-postgres would read
// them in the process's local time zone. These statements read them as UTC, as Prisma does (only the
// driver's queries: Prisma's adapter parses its own).
const TIMESTAMP = 1114;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMP
      ? (v: string) => new Date(`${v.replace(" ", "T")}Z`)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

// A Date is bound as Prisma's SQLite adapter writes DateTime (ISO 8601 text with +00:00), so comparisons
// with stored values are comparisons of the same text form; better-sqlite3 would refuse the object.
const sqliteValue = (v: unknown) => (v instanceof Date ? v.toISOString().replace("Z", "+00:00") : v);

// A Date is bound as its UTC wall-clock time (a "timestamp without time zone" ignores the Z), as Prisma
// writes it; node-postgres would send the process's local time.
const postgresValue = (v: unknown) => (typeof v === "bigint" ? v.toString() : v instanceof Date ? v.toISOString() : v);

/** node-postgres, on the pool Prisma's adapter uses. */
export function postgresDriver(pool: pg.Pool): Driver {
  const query = (q: Prisma.Sql) => pool.query({ text: q.text, values: q.values.map(postgresValue), types });
  // then's one promise a statement, not an async function's and its await's.
  const rows = (r: pg.QueryResult) => r.rows as Row[];
  const count = (r: pg.QueryResult) => r.rowCount ?? 0;
  const first = (r: pg.QueryResult<unknown[]>) => r.rows.map((row) => row[0]);
  const column = (q: Prisma.Sql) =>
    pool.query<unknown[]>({ text: q.text, values: q.values.map(postgresValue), types, rowMode: "array" }).then(first);
  return { provider: "postgresql", all: (q) => query(q).then(rows), run: (q) => query(q).then(count), column };
}
