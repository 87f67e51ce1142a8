// Real databases for integration tests: a fresh SQLite file always, and a fresh PostgreSQL database when
// TEST_POSTGRES_URL points at a server.
import { afterAll, beforeAll } from "vitest";
import { type ExecutorOptions, RunExecutor } from "../../lib/runs/executor";
import { type ScratchDb, scratchDatabase } from "./scratch";

export type TestDb = ScratchDb;

export const providers: ("sqlite" | "postgresql")[] = process.env.TEST_POSTGRES_URL ? ["sqlite", "postgresql"] : ["sqlite"];

export const freshDatabase = (provider: "sqlite" | "postgresql"): Promise<TestDb> =>
  scratchDatabase(provider, process.env.TEST_POSTGRES_URL);

/**
 * A fresh database and an executor on it for the enclosing describe block (created before its tests,
 * idled and dropped after). Read `.t` and `.ex` inside tests.
 */
export function databaseWithExecutor(provider: "sqlite" | "postgresql", opts: ExecutorOptions = {}) {
  const h = {} as { t: TestDb; ex: RunExecutor };
  beforeAll(async () => {
    h.t = await freshDatabase(provider);
    h.ex = new RunExecutor(h.t.db, opts);
  });
  afterAll(async () => {
    await h.ex?.idle();
    await h.t?.drop();
  });
  return h;
}
