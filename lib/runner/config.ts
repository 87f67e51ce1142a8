// What every execution of a runner shares (config, store, models) and what one execution starts from.
// Kept apart from runner.ts so that the execution's modules depend on these types, not on the Runner.
import type { Agent } from "./agent.ts";
import type { CheckpointRecord } from "./checkpoint.ts";
import type { Failpoint } from "./failpoints.ts";
import type { LlmResponse, Message } from "./messages.ts";
import type { ModelAdapter, RetryOptions } from "./model.ts";
import type { AgentResult } from "./result.ts";
import type { AppendLog, StoredSnapshot, SubagentExecution, ToolExecution } from "./runtime-snapshot.ts";
import type { MemoryStore } from "./store.ts";

/**
 * How the runner writes and waits: write-behind queue, coalescing and flush timeout (checkpoint-schema.md), approval deadline and
 * fallback, tool output cap, retries, an armed failpoint.
 */
export type RunnerConfig = {
  checkpointAsyncWrites: boolean;
  checkpointQueueMaxsize: number;
  checkpointFlushTimeoutS: number;
  checkpointCoalesceRuntimeState: boolean;
  approvalTimeoutS: number;
  approvalFallback: "deny" | "allow";
  toolOutputMaxChars: number;
  retry: RetryOptions;
  failpoint?: Failpoint;
  /** Names the process in run_started/resumed records, so a run's history shows who executed each part. */
  instanceId?: string;
  /** Wraps each subagent's execution (tracing gives it a span of its own; the runner only calls it). */
  aroundChild?: AroundChild;
};

/** A subagent execution as aroundChild sees it; `run` executes it (and must be called once). */
export type ChildExecution = { agent: string; runId: string; threadId: string; rootRunId: string; depth: number };
export type AroundChild = (child: ChildExecution, run: () => Promise<AgentResult>) => Promise<AgentResult>;

export const DEFAULT_RUNNER_CONFIG: RunnerConfig = {
  checkpointAsyncWrites: true,
  checkpointQueueMaxsize: 1024,
  checkpointFlushTimeoutS: 10,
  checkpointCoalesceRuntimeState: true,
  approvalTimeoutS: 24 * 60 * 60,
  approvalFallback: "deny",
  toolOutputMaxChars: 12_000,
  retry: { maxRetries: 2, baseDelayMs: 200 },
};

/** What one execution of a run starts from: the agent, ids, and (on resume) the restored snapshot. */
export type ExecutionInit = {
  agent: Agent;
  runId: string;
  threadId: string;
  depth: number;
  agentPath: string;
  rootRunId: string;
  /** A fresh run: */
  userMessage?: string;
  context: Record<string, unknown>;
  /** A resumed run: */
  restored?: {
    scalars: Omit<StoredSnapshot, "messages" | "tool_executions" | "subagent_executions" | "pending_llm_response">;
    pending: LlmResponse | null;
    messages: AppendLog<Message>;
    toolExecutions: AppendLog<ToolExecution>;
    subagentExecutions: AppendLog<SubagentExecution>;
    latest: CheckpointRecord;
  };
};

/** What every execution of a runner shares (the store it writes through, models, config). */
export type RunnerContext = {
  store: MemoryStore;
  models: Record<string, ModelAdapter>;
  config: RunnerConfig;
  runChild(agent: Agent, init: Omit<ExecutionInit, "agent" | "restored"> & { userMessage: string }): Promise<AgentResult>;
};
