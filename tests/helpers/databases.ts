// Real databases for integration tests: a fresh SQLite file always, and a fresh PostgreSQL database when
// TEST_POSTGRES_URL points at a server.
import { type ScratchDb, scratchDatabase } from "./scratch";

export type TestDb = ScratchDb;

export const providers: ("sqlite" | "postgresql")[] = process.env.TEST_POSTGRES_URL ? ["sqlite", "postgresql"] : ["sqlite"];

export const freshDatabase = (provider: "sqlite" | "postgresql"): Promise<TestDb> =>
  scratchDatabase(provider, process.env.TEST_POSTGRES_URL);
