// One Prisma client for the process, on the provider DATABASE_URL names; the adapters it runs on are
// set up in adapters.ts.
import "server-only";
import path from "node:path";
import { type Prisma, PrismaClient as SqliteClient } from "../generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "../generated/postgres/client.ts";
import { env, isPostgresUrl } from "../env.ts";
import { type Gate, postgresAdapter, sqliteAdapter } from "./adapters.ts";
import { type Driver, postgresDriver, type Row, sqliteDriver } from "./driver.ts";
import { tracingOn } from "../telemetry/sdk.ts";
import { tracedAdapter, tracedDriver } from "./tracing.ts";

// `Db` is the SQLite client's type, named as the shape both clients share. Both are generated from the one
// models file (`npm run db:check` proves it), so their model delegates take and return the same shapes;
// TypeScript cannot prove that of two separately generated sets of conditional types, so the PostgreSQL
// client is cast once, in createDb. The raw-SQL methods do match, and RawSqlShared below checks it. Not in
// the shape, and used nowhere: PostgreSQL-only options (`mode: "insensitive"`, isolation levels other than
// Serializable). The few statements whose SQL differs by provider ask providerOf().
export type Db = SqliteClient;
type RawSql = "$queryRaw" | "$executeRaw" | "$queryRawUnsafe" | "$executeRawUnsafe";
type Assignable<T, U extends T> = U;
export type RawSqlShared = Assignable<Pick<Db, RawSql>, Pick<PostgresClient, RawSql>>;

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

/** Affected rows of one SQL statement, through the driver or (a transaction client) Prisma's raw statement. */
export const executeSql = (db: Db, q: Prisma.Sql): Promise<number> => driverOf(db)?.run(q) ?? db.$executeRaw(q);

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

// With tracing on (lib/telemetry/sdk.ts, started before the first client), every statement is a span.
export function createDb(url: string = env().DATABASE_URL): Db {
  const traced = tracingOn();
  if (isPostgresUrl(url)) {
    const { adapter, pool } = postgresAdapter(url);
    const client = new PostgresClient({ adapter: traced ? tracedAdapter(adapter, "postgresql") : adapter }) as unknown as Db;
    providers.set(client, "postgresql");
    drivers.set(client, traced ? tracedDriver(postgresDriver(pool)) : postgresDriver(pool));
    return client;
  }
  const client = sqliteClient(url);
  providers.set(client, "sqlite");
  return client;
}

function sqliteClient(url: string): SqliteClient {
  // WAL lets readers (the console) work while a run writes. synchronous=NORMAL in WAL mode keeps every
  // committed checkpoint across a process crash (SIGKILL); only an OS crash or power loss can drop the last
  // transactions. Set AFK_SQLITE_SYNCHRONOUS=FULL to trade speed for that too. A 64 MB page cache instead
  // of SQLite's 2 MB: a 1,000-step run is ~5 MB of pages, and a resume (or a reviewer opening the run) soon
  // after it was written found them gone and read each one back from the WAL file (listing its 2,000
  // messages took 8.8 ms instead of 3.8).
  const pragmas = ["PRAGMA journal_mode=WAL", `PRAGMA synchronous=${env().AFK_SQLITE_SYNCHRONOUS}`, "PRAGMA cache_size=-65536"];
  const { factory, handle } = sqliteAdapter(url, { timeout: 10_000, pragmas, gate: gateOf(url) });
  const traced = tracingOn();
  const client = new SqliteClient({ adapter: traced ? tracedAdapter(factory, "sqlite") : factory });
  // The driver runs on the handle Prisma's connection opened, connecting first when there is none (yet).
  const open = () => {
    const h = handle();
    return h?.open ? h : null;
  };
  const connect = async () => {
    if (!handle()?.open) await client.$connect();
    const h = handle();
    if (!h) throw new Error("the SQLite adapter opened no connection");
    return h;
  };
  const driver = sqliteDriver({ open, connect }, gateOf(url));
  drivers.set(client, traced ? tracedDriver(driver) : driver);
  return client;
}

// One gate per file and process (adapters.ts says why), shared by every client of the file.
const gateOf = (url: string): Gate => {
  const key = path.resolve(url.replace(/^file:/, "").split("?")[0]);
  let g = gates.get(key);
  if (!g) {
    g = { open: null };
    gates.set(key, g);
  }
  return g;
};

const globalForDb = globalThis as unknown as { afkDb?: Db };

export function db(): Db {
  globalForDb.afkDb ??= createDb();
  return globalForDb.afkDb;
}
