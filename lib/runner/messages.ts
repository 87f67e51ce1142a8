import { z } from "zod";

export const toolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const messageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string(),
    tool_calls: z.array(toolCallSchema).default([]),
    agent: z.string().optional(),
  }),
  z.object({
    role: z.literal("tool"),
    tool_call_id: z.string().min(1),
    name: z.string(),
    content: z.string(),
    success: z.boolean(),
    untrusted: z.boolean().default(true),
  }),
]);
export type Message = z.infer<typeof messageSchema>;

export const usageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof usageSchema>;
export const zeroUsage = (): Usage => ({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });
export const addUsage = (a: Usage, b: Usage): Usage => ({
  input_tokens: a.input_tokens + b.input_tokens,
  output_tokens: a.output_tokens + b.output_tokens,
  total_tokens: a.total_tokens + b.total_tokens,
});

/** What a model call returns, as stored in pending_llm_response. */
export const llmResponseSchema = z.object({
  text: z.string(),
  tool_calls: z.array(toolCallSchema),
  finish_reason: z.enum(["stop", "tool_calls", "length", "content_filter", "error", "other"]),
  usage: usageSchema,
  model: z.string(),
  session_token: z.string().nullable().default(null),
  checkpoint_token: z.string().nullable().default(null),
  structured: z.record(z.string(), z.unknown()).nullable().default(null),
});
export type LlmResponse = z.infer<typeof llmResponseSchema>;
