// A demo agent that opts out of resuming by itself (`autoResume: false`), under `<name>-manual`: for tests
// of the manual Resume on the demo agents' tools and scripts (the same model, so the same demo script).
import path from "node:path";
import { agentFiles } from "@/agents/index";
import { loadAgents } from "@/lib/agents/load";
import type { Db } from "@/lib/db/client";
import { env } from "@/lib/env";
import type { Agent } from "@/lib/runner/index";

/** db: the database, or a getter of it (a context's options are given before its database exists). */
export function manualResume(db: Db | (() => Db), name: string): Record<string, Agent> {
  const loaded = loadAgents(agentFiles, {
    db: typeof db === "function" ? db : () => db,
    idempotentTools: env().AFK_DEMO_TOOLS_IDEMPOTENT === "1",
    dataDir: path.resolve(env().AFK_DATA_DIR),
  });
  const agent = loaded.startable[name];
  if (!agent) throw new Error(`no demo agent ${name}`);
  return { [`${name}-manual`]: { ...agent, name: `${name}-manual`, autoResume: false } };
}
