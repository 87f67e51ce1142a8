// What the console's services work with, built once per process (lib/runs/instance.ts) or per test:
// the database, the runner's store on it, the agents, the executor that runs them and the live bus. Services receive
// this instead of reaching into the executor.
import type { Db } from "./db/client.ts";
import type { AgentRegistry } from "./agents/registry.ts";
import type { PrismaStore } from "./db/store.ts";
import type { RunExecutor } from "./runs/executor.ts";
import type { LiveBus } from "./live/bus.ts";

export type AppContext = {
  readonly db: Db;
  readonly store: PrismaStore;
  readonly agents: AgentRegistry;
  readonly executor: RunExecutor;
  /** Live updates (run changes, streamed text, inbox, work, cancel) to this and every other instance. */
  readonly live: LiveBus;
};
