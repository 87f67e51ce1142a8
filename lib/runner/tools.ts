import type { z } from "zod";

/** What a tool sees besides its arguments: where it runs, an idempotency key stable across re-executions, and an abort signal. */
export type ToolContext = {
  runId: string;
  threadId: string;
  step: number;
  toolCallId: string;
  agentPath: string;
  context: Record<string, unknown>;
  /**
   * Stable across every replay and re-execution of this one call (run, step, tool call id): a tool with
   * side effects stores it with a unique constraint, so a call re-executed after a crash between the
   * tool returning and its effect record becoming durable does its work once.
   */
  idempotencyKey: string;
  /** Aborted when the run is cancelled or this execution loses its lease. */
  signal: AbortSignal;
};

export type Tool<A extends z.ZodType = z.ZodType> = {
  name: string;
  description: string;
  schema: A;
  /** Where the tool comes from when it is not the agent's own code (an MCP server's tool). */
  origin?: { mcpServer: string; mcpTool: string };
  /** Set by askHuman(): the call is a question for a reviewer, never executed. */
  asksHuman?: { answerSchema?: z.ZodObject; groups?: string[] };
  execute(args: z.infer<A>, ctx: ToolContext): Promise<unknown>;
};

/** Declares a tool: name, description, zod schema of its arguments and what it does. The schema validates every call. */
export function defineTool<A extends z.ZodType>(t: Tool<A>): Tool<A> {
  return t;
}

/** Tool output goes back to the model as untrusted text, capped in size (as the reference does, afk-runtime.md). */
export function renderToolOutput(output: unknown, maxChars: number): string {
  const text = typeof output === "string" ? output : JSON.stringify(output ?? null);
  return text.length > maxChars ? `${text.slice(0, maxChars)}…[truncated ${text.length - maxChars} chars]` : text;
}

/** The idempotency key of one tool call: the same for every execution of that call, different for any other. */
export const toolIdempotencyKey = (runId: string, step: number, toolCallId: string) => `${runId}:${step}:${toolCallId}`;
