// Real databases for integration tests: a fresh SQLite file always, and a fresh PostgreSQL database when
// TEST_POSTGRES_URL points at a server.
import { afterAll, beforeAll } from "vitest";
import type { AppContext } from "../../lib/context";
import { PgLiveBus } from "../../lib/live/bus";
import { testContext, type TestContextOptions } from "./context";
import { type ScratchDb, scratchDatabase } from "./scratch";

export type TestDb = ScratchDb;

export const providers: ("sqlite" | "postgresql")[] = process.env.TEST_POSTGRES_URL ? ["sqlite", "postgresql"] : ["sqlite"];

export const freshDatabase = (provider: "sqlite" | "postgresql"): Promise<TestDb> =>
  scratchDatabase(provider, process.env.TEST_POSTGRES_URL);

/**
 * A fresh database and a context on it for the enclosing describe block (created before its tests,
 * idled and dropped after). Read `.t` and `.ctx` inside tests.
 */
export function databaseWithContext(provider: "sqlite" | "postgresql", opts: TestContextOptions = {}) {
  const h = {} as { t: TestDb; ctx: AppContext };
  beforeAll(async () => {
    h.t = await freshDatabase(provider);
    h.ctx = testContext(h.t.db, opts);
  });
  afterAll(async () => {
    await h.ctx?.worker.idle();
    await h.t?.drop();
  });
  return h;
}

/**
 * Two instances of the console on one database: on PostgreSQL each with its own live bus (LISTEN/NOTIFY,
 * listening before this returns), so a notice crosses instances as in production; on SQLite one process
 * is the only deployment, so both names are the same instance. `close` idles their workers and closes the buses.
 */
export async function twoInstances(t: TestDb): Promise<{ a: AppContext; b: AppContext; close: () => Promise<void> }> {
  let a: AppContext;
  let b: AppContext;
  if (t.name === "postgresql") {
    const [busA, busB] = [new PgLiveBus(t.url), new PgLiveBus(t.url)];
    await Promise.all([busA.ready, busB.ready]);
    a = testContext(t.db, { live: busA });
    b = testContext(t.db, { live: busB });
  } else a = b = testContext(t.db);
  const close = async () => {
    await a.worker.idle();
    await b.worker.idle();
    await a.live.close();
    if (b !== a) await b.live.close();
  };
  return { a, b, close };
}
