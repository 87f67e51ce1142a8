// Span names and attribute keys, in one place. They follow the OpenTelemetry GenAI and MCP semantic
// conventions, which are still in development status: when those change, this file changes and nothing else.
// Keys the conventions do not cover are ours, under `afk.`.

export const SPAN = {
  /** One execution segment of a run: from its claim until it pauses or ends. */
  invokeAgent: (agent: string) => `invoke_agent ${agent}`,
  /** One model call (one attempt of one model of the fallback chain). */
  chat: (model: string) => `chat ${model}`,
  executeTool: (tool: string) => `execute_tool ${tool}`,
  mcpToolsCall: (tool: string) => `tools/call ${tool}`,
} as const;

export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
} as const;

export const OPERATION = { invokeAgent: "invoke_agent", chat: "chat", executeTool: "execute_tool" } as const;

export const MCP = {
  methodName: "mcp.method.name",
  toolsCall: "tools/call",
  server: "afk.mcp.server",
} as const;

export const ERROR_TYPE = "error.type";
/** error.type (and an invoke_agent span's afk.run.state) of a span the process stopped before it ended. */
export const INTERRUPTED = "interrupted";

export const DB = {
  systemName: "db.system.name",
  operationName: "db.operation.name",
  queryText: "db.query.text",
} as const;

export const AFK = {
  runId: "afk.run.id",
  rootRunId: "afk.run.root_id",
  epoch: "afk.run.epoch",
  resumed: "afk.run.resumed",
  outcome: "afk.run.state",
  step: "afk.run.step",
  queueWaitMs: "afk.queue.wait_ms",
  instance: "afk.instance.id",
  /** Time from the request until the first streamed chunk of a model call (the GenAI metric's name). */
  timeToFirstChunkS: "gen_ai.response.time_to_first_chunk",
  approvalId: "afk.approval.id",
  approvalKind: "afk.approval.kind",
  decision: "afk.approval.decision",
  waitS: "afk.approval.wait_s",
  replayed: "afk.tool.replayed",
  linkKind: "afk.link.kind",
  /** A segment's own statements, not spans (lib/db/tracing.ts), and their time: the record writes apart. */
  untracedStatements: "afk.db.untraced_statements",
  untracedMs: "afk.db.untraced_ms",
  recordWrites: "afk.db.record_writes",
  recordWriteMs: "afk.db.record_write_ms",
} as const;

/** Span events. */
export const EVENT = {
  approvalRequested: "afk.approval.requested",
  approvalDecided: "afk.approval.decided",
  paused: "afk.run.paused",
} as const;
