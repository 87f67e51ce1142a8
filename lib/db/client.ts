// One Prisma client for the process, on the provider DATABASE_URL names. Both generated clients come from
// the same models file, so the SQLite client's type describes either.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "../generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "../generated/postgres/client.ts";
import { env, isPostgresUrl } from "../env.ts";

export type Db = SqliteClient;

const providers = new WeakMap<object, "sqlite" | "postgresql">();

// Which provider a client speaks (for the few statements whose SQL differs). Transaction clients and
// unknown objects count as SQLite, whose SQL is the common subset.
export const providerOf = (db: Db): "sqlite" | "postgresql" => providers.get(db) ?? "sqlite";

export function createDb(url: string = env().DATABASE_URL): Db {
  if (isPostgresUrl(url)) {
    const adapter = new PrismaPg({ connectionString: url, max: 10 });
    const client = new PostgresClient({ adapter }) as unknown as Db;
    providers.set(client, "postgresql");
    return client;
  }
  const adapter = new PrismaBetterSQLite3({ url, timeout: 10_000 });
  // WAL lets readers (the console) work while a run writes. synchronous=NORMAL in WAL mode keeps every
  // committed checkpoint across a process crash (SIGKILL); only an OS crash or power loss can drop the last
  // transactions. Set AFK_SQLITE_SYNCHRONOUS=FULL to trade speed for that too. The pragmas run on the
  // connection before Prisma gets it, so no query (or transaction) can come first.
  const sync = process.env.AFK_SQLITE_SYNCHRONOUS === "FULL" ? "FULL" : "NORMAL";
  const connect = adapter.connect.bind(adapter);
  adapter.connect = async () => {
    const conn = await connect();
    for (const sql of ["PRAGMA journal_mode=WAL", `PRAGMA synchronous=${sync}`]) await conn.queryRaw({ sql, args: [], argTypes: [] });
    return conn;
  };
  const client = new SqliteClient({ adapter });
  providers.set(client, "sqlite");
  return client;
}

const globalForDb = globalThis as unknown as { afkDb?: Db };

export function db(): Db {
  globalForDb.afkDb ??= createDb();
  return globalForDb.afkDb;
}
