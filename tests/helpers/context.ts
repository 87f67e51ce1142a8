// The one way tests build an AppContext: as lib/context.ts builds the process's, with in-process execution
// and an in-process live bus unless opts give a queue or a bus.
import { type AppContext, type ContextOptions, createContext } from "@/lib/context";
import type { Db } from "@/lib/db/client";

export type TestContextOptions = ContextOptions;

export function testContext(db: Db, opts: TestContextOptions = {}): AppContext {
  return createContext(db, opts);
}
