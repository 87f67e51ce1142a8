// One Prisma client for the process, on the provider DATABASE_URL names. Both generated clients come from
// the same models file, so the SQLite client's type describes either.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "../generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "../generated/postgres/client.ts";
import { env, isPostgresUrl } from "../env.ts";

export type Db = SqliteClient;

export function createDb(url: string = env().DATABASE_URL): Db {
  if (isPostgresUrl(url)) {
    const adapter = new PrismaPg({ connectionString: url, max: 10 });
    return new PostgresClient({ adapter }) as unknown as Db;
  }
  const adapter = new PrismaBetterSQLite3({ url, timeout: 10_000 });
  const client = new SqliteClient({ adapter });
  // WAL lets readers (the console) work while a run writes. synchronous=NORMAL in WAL mode keeps every
  // committed checkpoint across a process crash (SIGKILL); only an OS crash or power loss can drop the last
  // transactions. Set AFK_SQLITE_SYNCHRONOUS=FULL to trade speed for that too. Queued before any query.
  const sync = process.env.AFK_SQLITE_SYNCHRONOUS === "FULL" ? "FULL" : "NORMAL";
  void client.$executeRawUnsafe("PRAGMA journal_mode=WAL").then(
    () => client.$executeRawUnsafe(`PRAGMA synchronous=${sync}`),
    (e) => console.error(JSON.stringify({ level: "error", msg: "sqlite pragma failed", error: String(e) })),
  );
  return client;
}

const globalForDb = globalThis as unknown as { afkDb?: Db };

export function db(): Db {
  globalForDb.afkDb ??= createDb();
  return globalForDb.afkDb;
}
