import { z } from "zod";
import { RUN_STATES } from "./run-states.ts";

export const agentResultSchema = z.object({
  runId: z.string(),
  threadId: z.string(),
  state: z.enum(RUN_STATES),
  finalText: z.string(),
  finalStructured: z.record(z.string(), z.unknown()).nullable(),
  requestedModel: z.string(),
  normalizedModel: z.string(),
  providerAdapter: z.string(),
  toolExecutions: z.array(
    z.object({
      toolName: z.string(),
      toolCallId: z.string(),
      success: z.boolean(),
      output: z.unknown(),
      error: z.string().nullable(),
      latencyMs: z.number(),
      agentPath: z.string(),
      replayed: z.boolean(),
      approvedBy: z.array(z.string()),
    }),
  ),
  subagentExecutions: z.array(
    z.object({
      subagent: z.string(),
      runId: z.string(),
      toolCallId: z.string(),
      state: z.enum(RUN_STATES),
      finalText: z.string(),
      success: z.boolean(),
      latencyMs: z.number(),
    }),
  ),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() }),
  totalCostUsd: z.number(),
  sessionToken: z.string().nullable(),
  checkpointToken: z.string().nullable(),
  stateSnapshot: z.object({
    state: z.enum(RUN_STATES),
    step: z.number(),
    llmCalls: z.number(),
    toolCalls: z.number(),
    startedAtS: z.number(),
    elapsedS: z.number(),
    replayedEffectCount: z.number(),
  }),
  error: z.string().nullable(),
  pendingApprovals: z.array(z.string()),
  /** false only on a result handed back when the terminal flush timed out: not a clean outcome. */
  terminalDurable: z.boolean().optional(),
});
export type AgentResult = z.infer<typeof agentResultSchema>;
