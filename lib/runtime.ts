// Composition root: the runner on the configured database, with the demo model and demo agents.
import type { Db } from "./db/client.ts";
import { createDemoAgents } from "./agents/index.ts";
import {
  type Agent,
  DemoModel,
  checkpointLatestKey,
  keys,
  type ModelAdapter,
  type RunEvent,
  Runner,
  type RunnerConfig,
} from "./runner/index.ts";
import { PrismaStore } from "./store/prisma-store.ts";
import { providerAdapters } from "./models/ai-sdk.ts";
import { env } from "./env.ts";

// agents: more agents beside the demo ones (tests use agents whose tools count executions).
export function createRuntime(
  db: Db,
  opts: {
    config?: Partial<RunnerConfig>;
    onEvent?: (e: RunEvent) => void;
    models?: Record<string, ModelAdapter>;
    agents?: Record<string, Agent>;
    demoLatencyMs?: number;
  } = {},
) {
  const demoAgents = createDemoAgents(() => db, { idempotent: env().AFK_DEMO_TOOLS_IDEMPOTENT === "1" });
  const scripts = demoAgents.scripts;
  const agents = { ...demoAgents.agents, ...opts.agents };
  const demo = new DemoModel(scripts, opts.demoLatencyMs ?? env().AFK_DEMO_LATENCY_MS);
  const store = new PrismaStore(db);
  const runner = new Runner(
    store,
    { ...providerAdapters(env()), demo, ...opts.models },
    { failpoint: env().AFK_FAILPOINT, ...opts.config },
    opts.onEvent,
  );
  const agent = (name: string): Agent => {
    const a = (agents as Record<string, Agent>)[name];
    if (!a) throw new Error(`Unknown agent ${name}`);
    return a;
  };
  // Approvals name the run they belong to; a subagent's run id is its parent's id plus a suffix.
  const agentForRun = async (threadId: string, runId: string): Promise<Agent> => {
    const latest = (await store.getState(threadId, checkpointLatestKey(runId))) as { payload?: { agent_name?: string } } | undefined;
    const snap = (await store.getState(threadId, keys.runtime(runId))) as { agent_name?: string } | undefined;
    return agent(String(snap?.agent_name ?? latest?.payload?.agent_name ?? ""));
  };
  return { runner, store, demo, agents, agent, agentForRun };
}
