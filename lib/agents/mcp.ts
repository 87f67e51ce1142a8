// Tools from MCP servers (the official TypeScript SDK's client, stdio and streamable HTTP transports).
// Each MCP tool becomes a runner Tool named `<server>__<tool>`, so policy rules match it like any tool
// (`notes__write_*`), approvals and effects are recorded under that name, and replay never calls the
// server again for a call whose effect is recorded. The runner's idempotency key goes with every call as
// `_meta["afk/idempotency_key"]`: a server that keys its side effects on it does them once even when a
// call is executed again after a crash (the one window the effect journal cannot close; docs/operating.md "Exactly
// once"). The AI SDK's MCP client does not send `_meta` with a call, which is why this one is used.
import { z } from "zod";
import { type Tool, matchesToolName } from "../runner/index.ts";
import { log } from "../log.ts";
import { mcpToolsCall } from "../telemetry/genai.ts";

export type McpServerConfig = {
  /** Names the server's tools: `<name>__<tool>`. Lowercase letters, digits and dashes. */
  name: string;
  transport:
    | { type: "stdio"; command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
    | { type: "http"; url: string; headers?: Record<string, string> };
  /** Only the tools whose names match one of these globs (default: every tool the server lists). */
  tools?: string[];
};

export const IDEMPOTENCY_META = "afk/idempotency_key";
const SEP = "__";

/** The runner tool name of an MCP server's tool. */
export const mcpToolName = (server: string, tool: string) => `${server}${SEP}${tool}`;

type Connected = { client: { close(): Promise<void> }; tools: Tool[] };

/** One client per server for the process, connected on first use; a failed connection is retried on the next. */
export class McpConnections {
  private readonly servers = new Map<string, Promise<Connected>>();

  async toolsOf(server: McpServerConfig): Promise<Tool[]> {
    const key = JSON.stringify(server);
    let p = this.servers.get(key);
    if (!p) {
      p = connect(server);
      this.servers.set(key, p);
      p.catch(() => this.servers.delete(key));
    }
    return (await p).tools;
  }

  async close(): Promise<void> {
    const all = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(all.map((p) => p.then((c) => c.client.close()).catch(() => {})));
  }
}

export class McpServerError extends Error {
  constructor(server: string, message: string) {
    super(`MCP server ${server}: ${message}`);
    this.name = "McpServerError";
  }
}

async function connect(server: McpServerConfig): Promise<Connected> {
  // Loaded on first use: most processes never talk to an MCP server, and a restart should not pay for it.
  const [{ Client }, { StdioClientTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]);
  const client = new Client({ name: "afk-console", version: "1" });
  const t = server.transport;
  const transport =
    t.type === "stdio"
      ? new StdioClientTransport({ command: t.command, args: t.args, env: t.env, cwd: t.cwd, stderr: "pipe" })
      : new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers: t.headers } });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new McpServerError(server.name, `could not connect (${e instanceof Error ? e.message : String(e)})`);
  }
  const wanted = server.tools;
  const listed = (await client.listTools()).tools.filter((x) => !wanted || wanted.some((g) => matchesToolName(g, x.name)));
  log.info("mcp server connected", { server: server.name, tools: listed.length });
  const tools = listed.map((x): Tool => {
    let schema: z.ZodType;
    try {
      schema = z.fromJSONSchema(x.inputSchema as never);
    } catch {
      // A schema zod cannot rebuild: any object, and the server validates.
      schema = z.record(z.string(), z.unknown());
    }
    return {
      name: mcpToolName(server.name, x.name),
      description: x.description ?? `${x.name} (MCP server ${server.name})`,
      schema,
      origin: { mcpServer: server.name, mcpTool: x.name },
      async execute(args, ctx) {
        const r = await mcpToolsCall(server.name, x.name, () =>
          client.callTool(
            { name: x.name, arguments: args as Record<string, unknown>, _meta: { [IDEMPOTENCY_META]: ctx.idempotencyKey } },
            undefined,
            { signal: ctx.signal },
          ),
        );
        const text = (Array.isArray(r.content) ? r.content : [])
          .map((c: { type: string; text?: string }) => (c.type === "text" ? (c.text ?? "") : `[${c.type}]`))
          .join("\n");
        if (r.isError) throw new McpServerError(server.name, `${x.name} failed: ${text.slice(0, 2000)}`);
        return r.structuredContent ?? text;
      },
    };
  });
  return { client, tools };
}
