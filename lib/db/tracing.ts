// Traces: database spans, both ways statements go (Prisma's driver adapter, which carries every Prisma
// query and transaction, and our own driver for the runner store's hot statements). Only when tracing is
// on: otherwise createDb uses the adapter and driver as they are.
//
// Which statements are spans: in a request, each one; in a run's execution segment, each statement a tool
// makes. The segment's own statements (the writes of the runner's records, the Run row's progress, the
// lease check before each tool, reads of records) are counted with their time on the segment's span
// instead, the record writes apart (segments.ts): a step makes about ten of them, each cheaper than a
// span of its own, and afk_checkpoint_write_seconds (lib/metrics.ts) has the writes' latencies.
import "server-only";
import { type Attributes, context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import type { Prisma } from "../generated/sqlite/client.ts";
import { DB, ERROR_TYPE } from "../telemetry/conventions.ts";
import { tracer } from "../telemetry/sdk.ts";
import { segmentTally, type StatementCount } from "../telemetry/segments.ts";
import type { Driver } from "./driver.ts";

type System = "sqlite" | "postgresql";

// Only inside a span (a request, a run's segment): the background's polls, heartbeats and sweeps would
// otherwise each be a trace of their own every few seconds. Not made active: nothing nests under a
// statement, and entering a context per statement is most of a span's cost. fn(q) runs the statement:
// given apart, not as a closure made per statement (a step makes about ten).
function statementSpan<Q, T>(system: System, sql: string, fn: (q: Q) => Promise<T>, q: Q): Promise<T> {
  const parent = context.active();
  const tally = segmentTally(parent);
  if (tally) return tallied(writesRecords(sql) ? tally.writes : tally.others, fn, q);
  if (!trace.getSpan(parent)?.isRecording()) return fn(q);
  const op = operationOf(sql);
  const attributes: Attributes = {
    [DB.systemName]: system,
    [DB.operationName]: op,
    [DB.queryText]: sql.length > 2000 ? sql.slice(0, 2000) : sql,
  };
  const span = tracer().startSpan(op, { kind: SpanKind.CLIENT, attributes }, parent);
  let pending: Promise<T>;
  try {
    pending = fn(q);
  } catch (e) {
    span.end();
    throw e;
  }
  return pending.then(
    (v) => {
      span.end();
      return v;
    },
    (e) => {
      span.setAttribute(ERROR_TYPE, e instanceof Error ? e.name : "Error");
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw e;
    },
  );
}

// One promise a statement (then's): an async function awaiting the statement made two.
function tallied<Q, T>(count: StatementCount, fn: (q: Q) => Promise<T>, q: Q): Promise<T> {
  const t0 = performance.now();
  count.n++;
  let pending: Promise<T>;
  try {
    pending = fn(q);
  } catch (e) {
    count.ms += performance.now() - t0;
    return Promise.reject(e);
  }
  return pending.then(
    (v) => {
      count.ms += performance.now() - t0;
      return v;
    },
    (e) => {
      count.ms += performance.now() - t0;
      throw e;
    },
  );
}

// The statement's first keyword (SELECT, INSERT, BEGIN…). Anchored at the start: no cache keyed by the
// text, whose hash V8 computes over the whole (long, new each time) string.
const operationOf = (sql: string): string => /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? "SQL";

// A write of the runner's records: INSERT INTO, UPDATE or DELETE FROM "StateEntry", the table named near
// the start (with Prisma's schema prefix at most).
const writesRecords = (sql: string): boolean => /^\s*(INSERT INTO|UPDATE|DELETE FROM)\s[^(]{0,40}"StateEntry"/i.test(sql);

/** Our driver (lib/db/driver.ts) with a span per statement. */
export function tracedDriver(d: Driver): Driver {
  const all = (q: Prisma.Sql) => d.all(q);
  const run = (q: Prisma.Sql) => d.run(q);
  const column = (q: Prisma.Sql) => d.column(q);
  return {
    provider: d.provider,
    all: (q: Prisma.Sql) => statementSpan(d.provider, q.sql, all, q),
    run: (q: Prisma.Sql) => statementSpan(d.provider, q.sql, run, q),
    column: (q: Prisma.Sql) => statementSpan(d.provider, q.sql, column, q),
  };
}

/** Prisma's adapter factory, its connections' statements and transactions' statements each a span. */
export function tracedAdapter(f: SqlMigrationAwareDriverAdapterFactory, system: System): SqlMigrationAwareDriverAdapterFactory {
  return withOverrides(f, {
    connect: async () => tracedConnection(await f.connect(), system),
  });
}

function tracedConnection(conn: SqlDriverAdapter, system: System): SqlDriverAdapter {
  return withOverrides(conn, {
    ...tracedQueries(conn, system),
    startTransaction: async (level?: Parameters<SqlDriverAdapter["startTransaction"]>[0]) => {
      const tx = await conn.startTransaction(level);
      return withOverrides<Transaction>(tx, tracedQueries(tx, system));
    },
  });
}

function tracedQueries(q: Pick<SqlDriverAdapter, "queryRaw" | "executeRaw">, system: System) {
  const query = (x: SqlQuery) => q.queryRaw(x);
  const execute = (x: SqlQuery) => q.executeRaw(x);
  return {
    queryRaw: (x: SqlQuery) => statementSpan(system, x.sql, query, x),
    executeRaw: (x: SqlQuery) => statementSpan(system, x.sql, execute, x),
  };
}

// Everything else of the object passes through unchanged (bound to it), whatever an upgrade adds.
function withOverrides<T extends object>(target: T, overrides: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(t, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof T];
      const v = Reflect.get(t, prop, t);
      return typeof v === "function" ? v.bind(t) : v;
    },
  });
}
