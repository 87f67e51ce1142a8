// Workarounds for Prisma 6.19's JavaScript schema engine, used by the Prisma CLI only (never by the app).
// See ../shared/notes/stack.md (known bugs #2, #4-#7) for the symptoms each one fixes.
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";

// #7: the wasm engine and pg pools keep the CLI alive for a minute after success.
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...rest: unknown[]) => {
  const t = realSetTimeout(fn, ms, ...rest);
  if ((ms ?? 0) >= 5000) (t as unknown as { unref?: () => void }).unref?.();
  return t;
}) as typeof setTimeout;

// #2: better-sqlite3's prepare() takes one statement; the shadow database receives whole migration scripts.
function scriptAware(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const executeRaw = adapter.executeRaw.bind(adapter);
  adapter.executeRaw = async (q) => {
    if (q.args.length === 0 && q.sql.includes(";")) {
      await adapter.executeScript(q.sql);
      return 0;
    }
    return executeRaw(q);
  };
  return adapter;
}

export function sqliteAdapter(url: string): SqlMigrationAwareDriverAdapterFactory {
  const factory = new PrismaBetterSQLite3({ url });
  const shadow = factory.connectToShadowDb.bind(factory);
  factory.connectToShadowDb = async () => scriptAware(await shadow());
  return factory;
}

// #4: the engine cannot deserialize pg's `name` (19) and `"char"` (18) columns; read them as text (25).
type AddFields = (fields: { dataTypeID: number }[]) => void;
const proto = (pg as unknown as { Result: { prototype: { addFields: AddFields } } }).Result.prototype;
const addFields = proto.addFields;
proto.addFields = function (this: unknown, fields) {
  for (const f of fields) if (f.dataTypeID === 18 || f.dataTypeID === 19) f.dataTypeID = 25;
  return addFields.call(this, fields);
};

function poolConfig(url: string, database?: string): pg.PoolConfig {
  // #5: pass discrete fields; a connectionString would override `database` for the shadow db.
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: database ?? u.pathname.slice(1),
    allowExitOnIdle: true,
  };
}

// The engine aborts (`RuntimeError: unreachable`) reading a CHECK constraint back from PostgreSQL (the
// Approval table's status, kind and decision have one). A Prisma schema cannot state one, so its diffs
// never compare them: the CLI reads the database's constraints without them.
function withoutCheckConstraints<A extends SqlDriverAdapter>(adapter: A): A {
  const queryRaw = adapter.queryRaw.bind(adapter);
  adapter.queryRaw = async (q) => {
    const r = await queryRaw(q);
    const type = r.columnNames.indexOf("constraint_type");
    if (type === -1 || !r.columnNames.includes("constraint_definition")) return r;
    return { ...r, rows: r.rows.filter((row) => row[type] !== "c") };
  };
  return adapter;
}

export function postgresAdapter(url: string): SqlMigrationAwareDriverAdapterFactory {
  const factory = new PrismaPg(poolConfig(url));
  const connect = factory.connect.bind(factory);
  factory.connect = async () => withoutCheckConstraints(await connect());
  // #6: create and drop the shadow database ourselves, forcing the drop.
  factory.connectToShadowDb = async () => {
    const name = `afk_shadow_${process.pid}_${Date.now()}`;
    const admin = new pg.Client(poolConfig(url));
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const shadow = withoutCheckConstraints(await new PrismaPg(poolConfig(url, name)).connect());
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      const c = new pg.Client(poolConfig(url));
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    };
    return shadow;
  };
  return factory;
}
