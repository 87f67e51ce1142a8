// The agents this instance knows: the top-level ones a run can be started with, and every subagent they
// delegate to. Look-ups by name go through here so nobody casts the agent map.
import { type Agent, type Tool, failSafeOf, resolveModel } from "../runner/index.ts";
import { type McpConnections, type McpServerConfig, McpServerError, mcpToolName } from "./mcp.ts";

export class AgentRegistry {
  private readonly byName = new Map<string, Agent>();
  private readonly prepared = new Map<string, Promise<void>>();

  /**
   * topLevel: the startable agents by name; others: agents only reachable as subagents; providers: the
   * model providers this process has adapters for (undefined: assume all).
   */
  constructor(
    private readonly topLevel: Record<string, Agent>,
    others: Agent[] = [],
    private readonly providers?: ReadonlySet<string>,
    private readonly mcp: { servers: Record<string, McpServerConfig[]>; connections: McpConnections } | null = null,
  ) {
    const visit = (a: Agent) => {
      if (this.byName.has(a.name)) return;
      this.byName.set(a.name, a);
      for (const s of a.subagents ?? []) visit(s);
    };
    for (const a of [...Object.values(topLevel), ...others]) visit(a);
  }

  /**
   * Makes the agent (and its subagents) ready to run here: the tools of its MCP servers, listed by each
   * server on first use, join its own. Idempotent; a server that cannot be reached fails this call (with
   * McpServerError) and is asked again next time.
   */
  async prepare(a: Agent): Promise<void> {
    for (const s of a.subagents ?? []) await this.prepare(s);
    const servers = this.mcp?.servers[a.name];
    if (!servers) return;
    let p = this.prepared.get(a.name);
    if (!p) {
      p = (async () => {
        const lists = await Promise.all(servers.map((s) => this.mcp!.connections.toolsOf(s)));
        for (const t of lists.flat()) {
          const i = a.tools.findIndex((own) => own.name === t.name);
          // The same server's tool, added by another runtime sharing this agent object: take the newer one.
          if (i >= 0 && a.tools[i].origin?.mcpServer === t.origin?.mcpServer) a.tools[i] = t;
          else if (i >= 0) throw new McpServerError(t.origin!.mcpServer, `tool ${t.name} clashes with one of ${a.name}'s`);
          else a.tools.push(t);
        }
      })();
      this.prepared.set(a.name, p);
      p.catch(() => this.prepared.delete(a.name));
    }
    await p;
  }

  /** The MCP server and tool behind a tool name of this agent, from its configuration (no connection needed). */
  mcpOriginOf(agentName: string, toolName: string): { server: string; tool: string } | null {
    for (const s of this.mcp?.servers[agentName] ?? []) {
      const prefix = mcpToolName(s.name, "");
      if (toolName.startsWith(prefix)) return { server: s.name, tool: toolName.slice(prefix.length) };
    }
    return null;
  }

  /**
   * Why a run of this agent cannot start here, or null: no model of its chain (model, then fallbacks)
   * has a configured provider, e.g. OPENAI_COMPATIBLE_BASE_URL is not set.
   */
  unavailableReason(a: Agent): string | null {
    if (!this.providers) return null;
    const chain = [a.model, ...failSafeOf(a).fallbackModelChain].map((m) => resolveModel(m).provider);
    if (chain.some((p) => this.providers!.has(p))) return null;
    return `its model provider ${chain[0]} is not configured on this server (${PROVIDER_ENV[chain[0]] ?? "see .env.example"})`;
  }

  /** A top-level agent or subagent by name; undefined when there is none. */
  find(name: string): Agent | undefined {
    return this.byName.get(name);
  }

  /** Like find, for names the database holds (a run's agent): an unknown one is an error. */
  get(name: string): Agent {
    const a = this.find(name);
    if (!a) throw new Error(`Unknown agent ${name}`);
    return a;
  }

  /** The agents a run can be started with (by the name under which they were registered). */
  startable(): Agent[] {
    return Object.values(this.topLevel);
  }

  /** A top-level agent by the name runs are started with. */
  topLevelAgent(name: string): Agent | undefined {
    return Object.hasOwn(this.topLevel, name) ? this.topLevel[name] : undefined;
  }

  /** Every agent, subagents included, sorted by name. */
  all(): Agent[] {
    return [...this.byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  // biome-ignore lint/suspicious/noExplicitAny: tools of different argument types (see Agent.tools)
  toolsOf(agentName: string): Tool<any>[] {
    return this.find(agentName)?.tools ?? [];
  }
}

const PROVIDER_ENV: Record<string, string> = {
  openai: "set OPENAI_API_KEY",
  anthropic: "set ANTHROPIC_API_KEY",
  "openai-compatible": "set OPENAI_COMPATIBLE_BASE_URL",
};
