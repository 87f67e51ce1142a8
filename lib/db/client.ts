// One Prisma client for the process, on the provider DATABASE_URL names. Both generated clients come from
// the same models file, so the SQLite client's type describes either.
import "server-only";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import path from "node:path";
import { type Prisma, PrismaClient as SqliteClient } from "../generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "../generated/postgres/client.ts";
import pg from "pg";
import type BetterSqlite3 from "better-sqlite3";
import { env, isPostgresUrl } from "../env.ts";
import { type Driver, postgresDriver, type Row, sqliteDriver } from "./driver.ts";

export type Db = SqliteClient;

// The registries live on globalThis, like the client itself (db() below): Next's server bundles hold more
// than one copy of this module, and the copy that created the process's client is not the one a route
// handler imports. With per-copy maps every route found no driver (its hot statements went through
// Prisma's engine) and took a PostgreSQL client for SQLite (fenced writes lost their FOR SHARE).
// WeakMaps, not properties on the client: a transaction client or a proxy of one must not be found.
type Registry = {
  providers: WeakMap<object, "sqlite" | "postgresql">;
  drivers: WeakMap<object, Driver>;
  gates: Map<string, Gate>;
};
const globalForRegistry = globalThis as unknown as { afkDbRegistry?: Registry };
globalForRegistry.afkDbRegistry ??= { providers: new WeakMap(), drivers: new WeakMap(), gates: new Map() };
const { providers, drivers, gates } = globalForRegistry.afkDbRegistry;

// Which provider a client speaks (for the few statements whose SQL differs). Transaction clients and
// unknown objects count as SQLite, whose SQL is the common subset.
export const providerOf = (db: Db): "sqlite" | "postgresql" => providers.get(db) ?? "sqlite";

/** The driver behind a top-level client (lib/db/driver.ts); null for a transaction client. */
export const driverOf = (db: Db): Driver | null => drivers.get(db) ?? null;

/**
 * Rows of one SQL statement: through the driver when the client has one, else (a transaction client)
 * through Prisma's raw query, inside its transaction. Text comes back alike on both paths; read counts
 * with Number() and DateTime, Boolean and BigInt columns with dateOf, boolOf and bigintOf (driver.ts),
 * which take what either path and either database returns.
 */
export const queryRows = (db: Db, q: Prisma.Sql): Promise<Row[]> => driverOf(db)?.all(q) ?? db.$queryRaw<Row[]>(q);

/**
 * Runs fn in one transaction of db: the only way code outside lib/db opens one. Every statement fn makes
 * through tx (lib/db functions given tx) commits or rolls back together.
 */
export function transaction<T>(db: Db, fn: (tx: Db) => Promise<T>, opts?: { maxWait?: number; timeout?: number }): Promise<T> {
  return db.$transaction((tx) => fn(tx as Db), opts);
}

/** Lets a library that writes its own SQL (pg-boss's job insert) run a statement inside transaction tx. */
export const sqlInTransaction = (tx: Db) => ({
  executeSql: async (text: string, values: unknown[]) => ({ rows: (await tx.$queryRawUnsafe(text, ...values)) as unknown[] }),
});

export function createDb(url: string = env().DATABASE_URL): Db {
  if (isPostgresUrl(url)) {
    // One pool, shared by Prisma and the driver; Prisma ends it on $disconnect.
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    const adapter = new PrismaPg(pool, { disposeExternalPool: true });
    const client = new PostgresClient({ adapter }) as unknown as Db;
    providers.set(client, "postgresql");
    drivers.set(client, postgresDriver(pool));
    return client;
  }
  const client = sqliteClient(url);
  providers.set(client, "sqlite");
  return client;
}

function sqliteClient(url: string): SqliteClient {
  const adapter = new PrismaBetterSQLite3({ url, timeout: 10_000 });
  // WAL lets readers (the console) work while a run writes. synchronous=NORMAL in WAL mode keeps every
  // committed checkpoint across a process crash (SIGKILL); only an OS crash or power loss can drop the last
  // transactions. Set AFK_SQLITE_SYNCHRONOUS=FULL to trade speed for that too. The pragmas run on the
  // connection before Prisma gets it, so no query (or transaction) can come first.
  const sync = env().AFK_SQLITE_SYNCHRONOUS;
  const connect = adapter.connect.bind(adapter);
  adapter.connect = async () => {
    const conn = await connect();
    // A 64 MB page cache instead of SQLite's 2 MB: a 1,000-step run is ~5 MB of pages, and a resume (or a
    // reviewer opening the run) soon after it was written found them gone and read each one back from the
    // WAL file (listing its 2,000 messages took 8.8 ms instead of 3.8).
    for (const sql of ["PRAGMA journal_mode=WAL", `PRAGMA synchronous=${sync}`, "PRAGMA cache_size=-65536"])
      await conn.queryRaw({ sql, args: [], argTypes: [] });
    // Transactions take the write lock when they begin (BEGIN IMMEDIATE, waiting up to the busy timeout).
    // A deferred BEGIN whose first write waits for another connection's commit finds its snapshot stale
    // and fails at once with SQLITE_BUSY, without waiting.
    const raw = (conn as unknown as { client?: BetterSqlite3.Database }).client;
    if (raw) {
      connected = raw;
      const prepare = raw.prepare.bind(raw);
      raw.prepare = (sql: string) => prepare(sql === "BEGIN" ? "BEGIN IMMEDIATE" : sql);
    }
    return gated(conn, gateOf(url));
  };
  let connected: BetterSqlite3.Database | null = null;
  const client = new SqliteClient({ adapter });
  const connection = async () => {
    if (!connected?.open) await client.$connect();
    if (!connected) throw new Error("the SQLite adapter exposes no connection");
    return connected;
  };
  drivers.set(client, sqliteDriver(connection, gateOf(url)));
  return client;
}

// better-sqlite3 is synchronous: an interactive transaction keeps its connection open across awaits, and
// any other query made meanwhile on that connection would run inside the transaction (and be rolled back
// with it); a query on another connection of this process to the same file would wait for the lock in a
// busy loop that blocks the event loop, so the transaction could never finish. One gate per file and
// process: while a transaction is open, every other query of the process on that file waits (without
// blocking), and transactions take turns. Other processes are kept apart by SQLite's own locks.
type Gate = { open: Promise<void> | null };
const gateOf = (url: string) => {
  const key = path.resolve(url.replace(/^file:/, "").split("?")[0]);
  let g = gates.get(key);
  if (!g) {
    g = { open: null };
    gates.set(key, g);
  }
  return g;
};

type Conn = Awaited<ReturnType<PrismaBetterSQLite3["connect"]>>;

function gated(conn: Conn, g: Gate): Conn {
  for (const m of ["queryRaw", "executeRaw", "executeScript"] as const) {
    const f = (conn[m] as (...a: unknown[]) => Promise<unknown>).bind(conn);
    // The check and the query happen in one tick (no await between them when the gate is open): a
    // transaction cannot begin in between.
    (conn as unknown as Record<string, unknown>)[m] = async (...a: unknown[]) => {
      while (g.open) await g.open;
      return f(...a);
    };
  }
  const start = conn.startTransaction.bind(conn);
  conn.startTransaction = async (...a: Parameters<Conn["startTransaction"]>) => {
    while (g.open) await g.open;
    let release!: () => void;
    g.open = new Promise<void>((r) => (release = r));
    const done = () => {
      g.open = null;
      release();
    };
    try {
      const tx = await start(...a);
      for (const m of ["commit", "rollback"] as const) {
        const f = tx[m].bind(tx);
        tx[m] = async () => {
          try {
            return await f();
          } finally {
            done();
          }
        };
      }
      return tx;
    } catch (e) {
      done();
      throw e;
    }
  };
  return conn;
}

const globalForDb = globalThis as unknown as { afkDb?: Db };

export function db(): Db {
  globalForDb.afkDb ??= createDb();
  return globalForDb.afkDb;
}
