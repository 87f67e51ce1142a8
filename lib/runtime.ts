// Composition root: the runner on the configured database, with the models env configures and the agents
// of agents/ (the demo ones script the demo model).
import path from "node:path";
import type { Db } from "./db/client.ts";
import { agentFiles } from "../agents/index.ts";
import { loadAgents } from "./agents/load.ts";
import { McpConnections, type McpServerConfig } from "./agents/mcp.ts";
import { AgentRegistry } from "./agents/registry.ts";
import { type Agent, DemoModel, storedAgentName, type ModelAdapter, type RunEvent, Runner, type RunnerConfig } from "./runner/index.ts";
import { PrismaStore } from "./db/store.ts";
import { providerAdapters } from "./models/ai-sdk.ts";
import { env } from "./env.ts";
import { traceModels } from "./telemetry/genai.ts";
import { tracingOn } from "./telemetry/sdk.ts";
import { traceSubagent } from "./telemetry/segments.ts";

// agents: more agents beside the ones in agents/ (tests use agents whose tools count executions).
export function createRuntime(
  db: Db,
  opts: {
    config?: Partial<RunnerConfig>;
    onEvent?: (e: RunEvent) => void;
    models?: Record<string, ModelAdapter>;
    agents?: Record<string, Agent>;
    demoLatencyMs?: number;
    /** MCP servers of agents passed in `agents`, by agent name. */
    mcp?: Record<string, McpServerConfig[]>;
  } = {},
) {
  const files = loadAgents(agentFiles, {
    db: () => db,
    idempotentTools: env().AFK_DEMO_TOOLS_IDEMPOTENT === "1",
    dataDir: path.resolve(env().AFK_DATA_DIR),
  });
  const demo = new DemoModel(files.scripts, opts.demoLatencyMs ?? env().AFK_DEMO_LATENCY_MS);
  const models = { ...providerAdapters(env()), demo, ...opts.models };
  // The runner gets them traced (chat spans) when tracing is on; the registry checks names only.
  const agents = new AgentRegistry({ ...files.startable, ...opts.agents }, files.all, new Set(Object.keys(models)), {
    servers: { ...files.mcp, ...opts.mcp },
    connections: mcpConnections(),
  });
  const store = new PrismaStore(db);
  // With tracing on, each subagent's execution is a span of its own.
  const aroundChild = tracingOn() ? { aroundChild: traceSubagent } : {};
  const runner = new Runner(store, traceModels(models), { failpoint: env().AFK_FAILPOINT, ...aroundChild, ...opts.config }, opts.onEvent);
  const agent = (name: string): Agent => agents.get(name);
  // The agent a stored run (or subagent run) was executing, from its validated snapshot or latest record.
  const agentForRun = async (threadId: string, runId: string): Promise<Agent> => agents.get(await storedAgentName(store, threadId, runId));
  return { runner, store, demo, agents, agent, agentForRun };
}

// One set of MCP connections per process, shared by every runtime in it.
const g = globalThis as unknown as { afkMcp?: McpConnections };
export function mcpConnections(): McpConnections {
  g.afkMcp ??= new McpConnections();
  return g.afkMcp;
}

export type Runtime = ReturnType<typeof createRuntime>;
