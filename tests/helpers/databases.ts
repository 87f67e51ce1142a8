// Real databases for integration tests: a fresh SQLite file always, and a fresh PostgreSQL database when
// TEST_POSTGRES_URL points at a server.
import { afterAll, beforeAll } from "vitest";
import type { AppContext } from "../../lib/context";
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
