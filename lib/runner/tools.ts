import type { z } from "zod";

export type ToolContext = {
  runId: string;
  threadId: string;
  step: number;
  toolCallId: string;
  agentPath: string;
  context: Record<string, unknown>;
};

export type Tool<A extends z.ZodType = z.ZodType> = {
  name: string;
  description: string;
  schema: A;
  execute(args: z.infer<A>, ctx: ToolContext): Promise<unknown>;
};

export function defineTool<A extends z.ZodType>(t: Tool<A>): Tool<A> {
  return t;
}

// Tool output goes back to the model as untrusted text, capped in size (as the reference does).
export function renderToolOutput(output: unknown, maxChars: number): string {
  const text = typeof output === "string" ? output : JSON.stringify(output ?? null);
  return text.length > maxChars ? `${text.slice(0, maxChars)}…[truncated ${text.length - maxChars} chars]` : text;
}
