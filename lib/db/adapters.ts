// The Prisma driver adapters as this app runs them. Written for the versions package.json pins exactly
// (WRITTEN_FOR); tests/db/adapters.test.ts fails when the installed ones differ, when the parts of them this
// file relies on change shape, or when a transaction stops taking SQLite's write lock at BEGIN.
//
// SQLite: @prisma/adapter-better-sqlite3 has no option for what the app needs (its options are
// better-sqlite3's plus a timestamp format, and its startTransaction sends a deferred "BEGIN"), so its
// factory and connection are wrapped through their public interfaces (SqlDriverAdapterFactory,
// SqlDriverAdapter and Transaction of @prisma/driver-adapter-utils); nothing of theirs is replaced:
//  - pragmas run on each new connection before Prisma gets it;
//  - transactions are opened here, with BEGIN IMMEDIATE through the connection's executeRaw. Prisma sends
//    COMMIT and ROLLBACK as statements itself (usePhantomQuery: false, as the adapter's own transactions);
//  - the per-file gate (below) keeps this process's other statements out of an open transaction.
// One reach into internals is left, because no API gives it: the better-sqlite3 handle the adapter opened
// (its `client` field), which lib/db/driver.ts shares so that no other connection of this process holds a
// lock against Prisma's. handleOf() checks what it finds and fails the connect when it is not that handle.
//
// PostgreSQL: @prisma/adapter-pg needs nothing of the kind; it is given a pool of ours (shared with the
// driver) through its public options.
import "server-only";
import { log } from "../log.ts";
import type BetterSqlite3 from "better-sqlite3";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  Transaction,
} from "@prisma/driver-adapter-utils";
import pg from "pg";

export const WRITTEN_FOR = {
  "@prisma/client": "6.19.3",
  "@prisma/adapter-better-sqlite3": "6.19.3",
  "@prisma/adapter-pg": "6.19.3",
  "better-sqlite3": "12.11.1",
  pg: "8.23.1",
} as const;

/** The SQLite connection's methods, exactly: a method added by an upgrade must be looked at (and passed on). */
export const SQLITE_CONNECTION_METHODS = ["queryRaw", "executeRaw", "executeScript", "startTransaction", "dispose"] as const;

// better-sqlite3 is synchronous: an interactive transaction keeps its connection open across awaits, and
// any other query made meanwhile on that connection would run inside the transaction (and be rolled back
// with it); a query on another connection of this process to the same file would wait for the lock in a
// busy loop that blocks the event loop, so the transaction could never finish. One gate per file and
// process: while a transaction is open, every other statement of the process on that file waits (without
// blocking), and transactions take turns. Other processes are kept apart by SQLite's own locks.
export type Gate = { open: Promise<void> | null };

const statement = (sql: string): SqlQuery => ({ sql, args: [], argTypes: [] });

// Transactions take the write lock when they begin, waiting up to the busy timeout. A deferred BEGIN whose
// first write finds another connection's commit after its snapshot fails at once with SQLITE_BUSY instead.
const BEGIN = statement("BEGIN IMMEDIATE");

export function sqliteAdapter(url: string, o: { timeout: number; pragmas: string[]; gate: Gate }) {
  const inner = new PrismaBetterSQLite3({ url, timeout: o.timeout });
  let handle: BetterSqlite3.Database | null = null;
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: inner.provider,
    adapterName: inner.adapterName,
    async connect() {
      const conn = await inner.connect();
      handle = handleOf(conn);
      // Before Prisma gets the connection, so no query (or transaction) can come first.
      for (const sql of o.pragmas) await conn.queryRaw(statement(sql));
      return gated(conn, o.gate);
    },
    connectToShadowDb: () => inner.connectToShadowDb(),
  };
  /** The better-sqlite3 handle of the current connection (null before the first connect). */
  return { factory, handle: () => handle };
}

export function handleOf(conn: SqlDriverAdapter): BetterSqlite3.Database {
  const h = (conn as unknown as { client?: Partial<BetterSqlite3.Database> }).client;
  if (typeof h?.prepare !== "function" || typeof h.pragma !== "function" || typeof h.open !== "boolean")
    throw new Error(
      `${conn.adapterName}: the connection holds no better-sqlite3 handle in .client; lib/db/adapters.ts was written for ${JSON.stringify(WRITTEN_FOR)}`,
    );
  return h as BetterSqlite3.Database;
}

function gated(conn: SqlDriverAdapter, g: Gate): SqlDriverAdapter {
  // The check and the statement happen in one tick (no await between them when the gate is open): a
  // transaction cannot begin in between.
  return {
    provider: conn.provider,
    adapterName: conn.adapterName,
    async queryRaw(q) {
      while (g.open) await g.open;
      return conn.queryRaw(q);
    },
    async executeRaw(q) {
      while (g.open) await g.open;
      return conn.executeRaw(q);
    },
    async executeScript(script) {
      while (g.open) await g.open;
      return conn.executeScript(script);
    },
    startTransaction: (level) => begin(conn, g, level),
    dispose: () => conn.dispose(),
  };
}

async function begin(conn: SqlDriverAdapter, g: Gate, level?: IsolationLevel): Promise<Transaction> {
  if (level && level !== "SERIALIZABLE") throw new Error(`SQLite transactions are SERIALIZABLE, not ${level}`);
  while (g.open) await g.open;
  let release!: () => void;
  g.open = new Promise<void>((r) => (release = r));
  const done = async () => {
    g.open = null;
    release();
  };
  try {
    await conn.executeRaw(BEGIN);
  } catch (e) {
    await done();
    throw e;
  }
  // Inside the transaction its statements go straight to the connection; Prisma sends COMMIT or ROLLBACK
  // through executeRaw, then calls commit() or rollback(), which open the gate.
  return {
    provider: conn.provider,
    adapterName: conn.adapterName,
    options: { usePhantomQuery: false },
    queryRaw: (q) => conn.queryRaw(q),
    executeRaw: (q) => conn.executeRaw(q),
    commit: done,
    rollback: done,
  };
}

/** PostgreSQL: one pool, shared by Prisma and the driver; Prisma ends it on $disconnect. */
export function postgresAdapter(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle connection the server or the network dropped is an 'error' on the pool, which without a
  // listener ended the process (uncaught): a database restart must cost queries, not the instance. The pool
  // drops the connection and opens a new one when next asked.
  pool.on("error", (e) => log.warn("database connection lost while idle", { error: String(e).slice(0, 200) }));
  return { adapter: new PrismaPg(pool, { disposeExternalPool: true }), pool };
}
