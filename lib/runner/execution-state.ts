// The state of one execution. Every field the runtime snapshot stores is held under its stored name, in
// one object built in one place (initialFields), so that restoring a snapshot, writing one and the result
// are each a typed function of that object, not a list of fields written again (checkpoint-schema.md).
import type { ExecutionInit } from "./config.ts";
import type { Phase } from "./checkpoint.ts";
import { type LlmResponse, type Message, zeroUsage } from "./messages.ts";
import type { ResolvedModel } from "./model.ts";
import type { AgentResult } from "./result.ts";
import {
  AppendLog,
  type LogRef,
  SNAPSHOT_SCHEMA_VERSION,
  type StoredSnapshot,
  type SubagentExecution,
  type ToolExecution,
} from "./runtime-snapshot.ts";
import { transition, type RunState } from "./run-states.ts";

/** The stored runtime snapshot, its pending model response typed: what an execution holds. */
export type SnapshotFields = Omit<StoredSnapshot, "pending_llm_response"> & { pending_llm_response: LlmResponse | null };

type Restored = NonNullable<ExecutionInit["restored"]>;

// Phases after which a run with no pending response resumes inside the same step, before its model call.
const REENTERED = new Set<Phase>(["step_started", "pre_llm", "paused", "resumed"]);

// Every field of a fresh run, in the order a stored snapshot lists them (its bytes follow this order; a
// restored snapshot's values are spread over it, which keeps the order). The three log references are
// placeholders that toSnapshot fills: as keys already there, they are written by overriding them, which
// V8 does in tens of nanoseconds, where adding three keys to a 20-key copy took ~10 µs.
function initialFields(agentName: string, model: ResolvedModel, context: Record<string, unknown>): SnapshotFields {
  return {
    schema_version: SNAPSHOT_SCHEMA_VERSION,
    agent_name: agentName,
    step: 0,
    state: "pending",
    context,
    llm_calls: 0,
    tool_calls: 0,
    started_at_s: Date.now() / 1000,
    active_elapsed_s: 0,
    usage: zeroUsage(),
    total_cost_usd: 0,
    session_token: null,
    checkpoint_token: null,
    pending_llm_response: null,
    requested_model: model.requested,
    normalized_model: model.normalized,
    provider_adapter: model.provider,
    final_text: "",
    final_structured: null,
    replayed_effect_count: 0,
    messages: NO_REF,
    tool_executions: NO_REF,
    subagent_executions: NO_REF,
  };
}

const NO_REF: LogRef = { count: 0, digest: "" };

/** One execution's state: the snapshot's fields and logs, and what only this execution keeps. */
export class ExecutionState {
  /** Write order of the next checkpoint record, across restarts. */
  seq: number;
  /** Start of the current active segment (the run's start or its resume); pauses are not active time. */
  segmentStartMs = Date.now();
  error: string | null = null;
  pendingApprovals: string[] = [];
  /** Resuming from step_started/pre_llm/paused re-enters that step instead of starting a new one. */
  reenterStep: boolean;
  /**
   * True while the pending response came from a model call of this execution: no effect or approval can
   * exist yet for its tool calls (effect keys carry the step), so the replay lookups are skipped.
   */
  freshResponse = false;

  private constructor(
    /**
     * The snapshot's fields. While the run executes, active_elapsed_s is the active time before the current
     * segment (activeElapsedS() adds the segment), and the log references are placeholders (the logs are
     * below).
     */
    readonly snap: SnapshotFields,
    readonly messages: AppendLog<Message>,
    readonly toolExecutions: AppendLog<ToolExecution>,
    readonly subagentExecutions: AppendLog<SubagentExecution>,
    seq: number,
    reenterStep: boolean,
  ) {
    this.seq = seq;
    this.reenterStep = reenterStep;
  }

  /** A run's first execution: the agent's context defaults under the run's context. */
  static fresh(init: ExecutionInit, model: ResolvedModel): ExecutionState {
    const context = { ...init.agent.contextDefaults, ...init.context };
    return new ExecutionState(initialFields(init.agent.name, model, context), new AppendLog(), new AppendLog(), new AppendLog(), 0, false);
  }

  /**
   * A resumed run: every stored field but the ones the agent and this execution decide (the schema version
   * written, the agent's name and model); the stored context under the context given to this resume.
   */
  static fromSnapshot(init: ExecutionInit, model: ResolvedModel, r: Restored): ExecutionState {
    const {
      schema_version: _v,
      agent_name: _a,
      requested_model: _r,
      normalized_model: _n,
      provider_adapter: _p,
      context,
      ...carried
    } = r.scalars;
    const merged = { ...init.agent.contextDefaults, ...context, ...init.context };
    const snap: SnapshotFields = { ...initialFields(init.agent.name, model, merged), ...carried, pending_llm_response: r.pending };
    // A pause with no pending response is a model-call gate's: its step has not called the model yet.
    const reenter = !r.pending && carried.step > 0 && REENTERED.has(r.latest.phase);
    return new ExecutionState(snap, r.messages, r.toolExecutions, r.subagentExecutions, r.latest.seq + 1, reenter);
  }

  /** The stored form: the fields with the active time up to now, and references to the logs. */
  toSnapshot(): StoredSnapshot {
    return {
      ...this.snap,
      active_elapsed_s: this.activeElapsedS(),
      messages: this.messages.ref(),
      tool_executions: this.toolExecutions.ref(),
      subagent_executions: this.subagentExecutions.ref(),
    };
  }

  toResult(runId: string, threadId: string): AgentResult {
    const s = this.snap;
    return {
      runId,
      threadId,
      state: s.state,
      finalText: s.final_text,
      finalStructured: s.final_structured,
      requestedModel: s.requested_model,
      normalizedModel: s.normalized_model,
      providerAdapter: s.provider_adapter,
      toolExecutions: this.toolExecutions.items.map((t) => ({
        toolName: t.tool_name,
        toolCallId: t.tool_call_id,
        success: t.success,
        output: t.output,
        error: t.error,
        latencyMs: t.latency_ms,
        agentPath: t.agent_path,
        replayed: t.replayed,
        approvedBy: t.approved_by,
      })),
      subagentExecutions: this.subagentExecutions.items.map((x) => ({
        subagent: x.subagent,
        runId: x.run_id,
        toolCallId: x.tool_call_id,
        state: x.state,
        finalText: x.final_text,
        success: x.success,
        latencyMs: x.latency_ms,
      })),
      usage: { inputTokens: s.usage.input_tokens, outputTokens: s.usage.output_tokens, totalTokens: s.usage.total_tokens },
      totalCostUsd: s.total_cost_usd,
      sessionToken: s.session_token,
      checkpointToken: s.checkpoint_token,
      stateSnapshot: {
        state: s.state,
        step: s.step,
        llmCalls: s.llm_calls,
        toolCalls: s.tool_calls,
        startedAtS: s.started_at_s,
        elapsedS: s.state === "paused" ? s.active_elapsed_s : this.activeElapsedS(),
        replayedEffectCount: s.replayed_effect_count,
      },
      error: this.error,
      pendingApprovals: this.pendingApprovals,
    };
  }

  /** Ends the active segment (the run pauses): its time joins active_elapsed_s, and nothing counts it again. */
  closeSegment() {
    const now = Date.now();
    this.snap.active_elapsed_s += (now - this.segmentStartMs) / 1000;
    this.segmentStartMs = now;
  }

  activeElapsedS(): number {
    return this.snap.active_elapsed_s + (Date.now() - this.segmentStartMs) / 1000;
  }

  /** Moves the run to a new state; throws for a move the state machine does not allow. */
  move(to: RunState) {
    this.snap.state = transition(this.snap.state, to);
  }
}
