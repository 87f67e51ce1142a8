// Turns the agent files (agents/index.ts lists them) into the runner's Agents: each file's factory is
// called once with the app's dependencies, subagent names are resolved, and mistakes a team can make
// when adding a file (a name that does not match the file, a duplicate, an unknown or circular
// subagent) stop the app at start with the file named.
import type { Agent, DemoScript } from "../runner/index.ts";
import { type AgentDeps, type AgentDefinition, isAgentFile } from "./define.ts";
import type { McpServerConfig } from "./mcp.ts";

export class AgentFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`agents/${file}.ts: ${message}`);
    this.name = "AgentFileError";
  }
}

export type LoadedAgents = {
  /** Agents a run can be started with, by name. */
  startable: Record<string, Agent>;
  /** Every agent, subagent-only ones included. */
  all: Agent[];
  /** Demo model scripts by agent name. */
  scripts: Record<string, DemoScript>;
  /** MCP servers by agent name (their tools join the agent when it is prepared, see AgentRegistry). */
  mcp: Record<string, McpServerConfig[]>;
};

const NAME = /^[a-z][a-z0-9-]{0,62}$/;

export function loadAgents(files: Record<string, unknown>, deps: AgentDeps): LoadedAgents {
  const defs = new Map<string, { file: string; def: AgentDefinition }>();
  for (const [file, mod] of Object.entries(files)) {
    if (!isAgentFile(mod)) throw new AgentFileError(file, "the default export must be defineAgent({...})");
    const def = mod.build(deps);
    if (!NAME.test(def.name)) throw new AgentFileError(file, `agent name ${JSON.stringify(def.name)} must be lowercase-with-dashes`);
    if (def.name !== file) throw new AgentFileError(file, `defines ${JSON.stringify(def.name)}; name the file after its agent`);
    defs.set(def.name, { file, def });
  }
  const built = new Map<string, Agent>();
  const building = new Set<string>();
  const build = (name: string, from: string): Agent => {
    const done = built.get(name);
    if (done) return done;
    const entry = defs.get(name);
    if (!entry) throw new AgentFileError(from, `subagent ${JSON.stringify(name)} has no file agents/${name}.ts`);
    if (building.has(name)) throw new AgentFileError(from, `subagent ${name} delegates back to itself (a cycle)`);
    building.add(name);
    const { subagents = [], startable: _s, demo: _d, mcpServers: _m, tools = [], ...rest } = entry.def;
    const agent: Agent = { ...rest, tools: [...tools], subagents: subagents.map((s) => build(s, entry.file)) };
    building.delete(name);
    built.set(name, agent);
    return agent;
  };
  const startable: Record<string, Agent> = {};
  const scripts: Record<string, DemoScript> = {};
  const mcp: Record<string, McpServerConfig[]> = {};
  for (const [name, { def, file }] of defs) {
    const agent = build(name, name);
    if (def.startable !== false) startable[name] = agent;
    if (def.demo) scripts[name] = def.demo;
    if (def.mcpServers?.length) {
      const names = def.mcpServers.map((m) => m.name);
      const bad = names.find((n) => !NAME.test(n));
      if (bad !== undefined) throw new AgentFileError(file, `MCP server name ${JSON.stringify(bad)} must be lowercase-with-dashes`);
      if (new Set(names).size !== names.length) throw new AgentFileError(file, "two MCP servers share a name");
      mcp[name] = def.mcpServers;
    }
  }
  return { startable, all: [...built.values()], scripts, mcp };
}
