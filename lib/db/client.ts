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
  return new SqliteClient({ adapter });
}

const globalForDb = globalThis as unknown as { afkDb?: Db };

export function db(): Db {
  globalForDb.afkDb ??= createDb();
  return globalForDb.afkDb;
}
