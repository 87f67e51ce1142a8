// What an agent file exports. One file per agent under agents/ (see docs/agents.md):
// `export default defineAgent({...})`, or a function of the app's dependencies when its tools need them.
// scripts/agents.mjs lists the files in agents/index.ts, so nothing central is edited to add one.
import type { Db } from "../db/client.ts";
import type { Agent, DemoScript, Tool } from "../runner/index.ts";
import type { McpServerConfig } from "./mcp.ts";

/** What the app hands an agent file's factory. */
export type AgentDeps = {
  /** The console's database (the demo tools write refunds, messages and deployments there). */
  db: () => Db;
  /** False only in tests that count executions: tools then ignore their idempotency key. */
  idempotentTools: boolean;
  /** The app's data directory (AFK_DATA_DIR), for files an agent's tools or MCP servers keep. */
  dataDir: string;
};

/** An agent as a file declares it: the runner's Agent, with subagents named instead of imported. */
export type AgentDefinition = Omit<Agent, "subagents" | "tools"> & {
  // biome-ignore lint/suspicious/noExplicitAny: tools of different argument types (see Agent.tools)
  tools?: Tool<any>[];
  /** Names of other agent files this one delegates to (each becomes a delegation tool the model can call). */
  subagents?: string[];
  /** Listed on the start form and `POST /api/runs` (default true; false for subagents only). */
  startable?: boolean;
  /** MCP servers whose tools this agent may call, as `<server>__<tool>` (policy globs match those names). */
  mcpServers?: McpServerConfig[];
  /** For a `demo:<name>` model: the deterministic script of its turns. */
  demo?: DemoScript;
};

const BRAND = Symbol.for("afk.agent-file");

export type AgentFile = { [BRAND]: true; build(deps: AgentDeps): AgentDefinition };

/** Declares the agent of one file in agents/. */
export function defineAgent(def: AgentDefinition | ((deps: AgentDeps) => AgentDefinition)): AgentFile {
  return { [BRAND]: true, build: typeof def === "function" ? def : () => def };
}

export function isAgentFile(v: unknown): v is AgentFile {
  return typeof v === "object" && v !== null && (v as Record<symbol, unknown>)[BRAND] === true;
}
