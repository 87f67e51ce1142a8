// One run's execution: step → model call → tools, a checkpoint at every phase boundary, durable pauses.
// The loop asks each pass for a NextStep (next-step.ts); the phases it calls live in gates.ts (the gate
// before a model call), tool-batch.ts and subagents.ts (a response's calls); what they share, the state and
// the one write path, in execution-state.ts and execution-scope.ts.
import { z } from "zod";
import { agentFingerprint, delegateToolName, instructionsFor } from "./agent.ts";
import { argsHash, closePendingApprovals, listApprovals } from "./approvals.ts";
import type { CheckpointRecord } from "./checkpoint.ts";
import { ExecutionScope } from "./execution-scope.ts";
import type { ExecutionInit, RunnerContext } from "./config.ts";
import { AgentCheckpointCorruptionError, AgentRunnerError, CheckpointWriteError, LeaseLostError } from "./errors.ts";
import type { RunEvent } from "./events.ts";
import { FailpointError } from "./failpoints.ts";
import { modelCallGate } from "./gates.ts";
import { type LlmResponse, type ToolCall, addUsage } from "./messages.ts";
import { type ToolSpec, callWithFallback, costUsd, resolveModel } from "./model.ts";
import { type NextStep, RUN_AGAIN } from "./next-step.ts";
import type { AgentResult } from "./result.ts";
import { ExecutionState } from "./execution-state.ts";
import { isTerminal } from "./run-states.ts";
import { runSubagentCalls } from "./subagents.ts";
import { type CallOutcome, type CallResult, runToolBatch } from "./tool-batch.ts";

const CANCELLED: NextStep = { type: "finish", state: "cancelled" };

/**
 * One execution of one run, from its first or restored step until it pauses or ends. Writes every checkpoint through the write-behind
 * writer; the Runner is its public face.
 */
export class RunExecution {
  private readonly x: ExecutionScope;
  private specs: ToolSpec[] | null = null;
  private outputSchemaJson: Record<string, unknown> | undefined | null = null;

  constructor(rc: RunnerContext, init: ExecutionInit, emit: (e: RunEvent) => void) {
    const model = resolveModel(init.agent.model);
    const state = init.restored ? ExecutionState.fromSnapshot(init, model, init.restored) : ExecutionState.fresh(init, model);
    this.x = new ExecutionScope(rc, init, model, state, emit);
  }

  cancel() {
    this.x.cancel();
  }

  abandon() {
    this.x.abandon();
  }

  async execute(): Promise<AgentResult> {
    try {
      const restored = this.x.init.restored;
      if (restored) await this.restart(restored.latest);
      else await this.start();
      return await this.loop();
    } catch (e) {
      return this.fail(e);
    }
  }

  private async loop(): Promise<AgentResult> {
    for (;;) {
      const next = await this.turn();
      switch (next.type) {
        case "run_again":
          continue;
        case "pause":
          return this.pause(next.approvalIds);
        case "finish":
          return this.finish(next.state);
      }
    }
  }

  // One pass: with no pending response, a new (or re-entered) step up to its model's response; then what
  // that response asks for.
  private async turn(): Promise<NextStep> {
    this.x.assertHeld();
    if (this.x.cancelRequested) return CANCELLED;
    if (!this.x.state.snap.pending_llm_response) {
      const gate = await this.startStep();
      if (gate.type !== "run_again") return gate;
      const called = await this.callModel();
      if (called.type !== "run_again") return called;
    }
    return this.resolveResponse(this.x.state.snap.pending_llm_response!);
  }

  private async start() {
    const { x } = this;
    x.state.move("running");
    const system = instructionsFor(x.agent, x.state.snap.context);
    if (system) await x.appendMessage({ role: "system", content: system });
    await x.appendMessage({ role: "user", content: x.init.userMessage ?? "" });
    await x.checkpoint(
      "run_started",
      {
        agent_name: x.agent.name,
        resumed: false,
        agent_fingerprint: agentFingerprint(x.agent),
        agent_path: x.init.agentPath,
        root_run_id: x.init.rootRunId,
        instance: x.rc.config.instanceId ?? null,
      },
      { snapshot: true },
    );
    x.event("run_started", `run ${x.runId} started`);
  }

  private async restart(from: Pick<CheckpointRecord, "phase" | "seq">) {
    const { x } = this;
    const st = x.state;
    const wasPaused = st.snap.state === "paused";
    if (wasPaused) st.move("running");
    else if (st.snap.state !== "running" && st.snap.state !== "degraded") st.snap.state = "running";
    st.segmentStartMs = Date.now();
    // The run's history records who decided what, next to the point where it went on.
    const decisions = wasPaused
      ? (await listApprovals(x.rc.store, x.threadId, x.runId))
          .filter((a) => a.step === st.snap.step)
          .map((a) => ({
            approval_id: a.id,
            tool_name: a.tool_name,
            status: a.status,
            decided_by: a.decisions.map((d) => d.by),
            edited: a.approved_args !== null && argsHash(a.approved_args) !== argsHash(a.args),
          }))
      : [];
    await x.checkpoint(wasPaused ? "resumed" : "run_started", {
      agent_name: x.agent.name,
      resumed: true,
      from_phase: from.phase,
      from_seq: from.seq,
      instance: x.rc.config.instanceId ?? null,
      ...(wasPaused ? { decisions } : {}),
    });
    x.event(wasPaused ? "run_resumed" : "run_started", `run ${x.runId} resumed from ${from.phase}`);
  }

  private limitExceeded(): string | null {
    const { fs, state } = this.x;
    if (state.snap.step >= fs.maxSteps && !state.reenterStep) return `max_steps (${fs.maxSteps}) reached`;
    if (state.snap.llm_calls >= fs.maxLlmCalls) return `max_llm_calls (${fs.maxLlmCalls}) reached`;
    if (state.activeElapsedS() > fs.maxWallTimeS) return `max_wall_time_s (${fs.maxWallTimeS}) exceeded`;
    return null;
  }

  // A new step, or the one a resume re-enters, up to the gate before its model call.
  private async startStep(): Promise<NextStep> {
    const { x } = this;
    const st = x.state;
    const limit = this.limitExceeded();
    if (limit) throw new AgentRunnerError(limit);
    const reentered = st.reenterStep;
    if (reentered) st.reenterStep = false;
    else st.snap.step++;
    await x.checkpoint("step_started", { state: st.snap.state, message_count: st.messages.items.length }, { snapshot: true });
    x.event("step_started", `step ${st.snap.step}`);
    return modelCallGate(x, reentered);
  }

  // Converted once per execution, like the tool specs, not at every model call.
  private outputJsonSchema(): Record<string, unknown> | undefined {
    const schema = this.x.agent.outputSchema;
    if (this.outputSchemaJson === null) this.outputSchemaJson = schema ? (z.toJSONSchema(schema) as Record<string, unknown>) : undefined;
    return this.outputSchemaJson;
  }

  private toolSpecs(): ToolSpec[] {
    if (this.specs) return this.specs;
    const agent = this.x.agent;
    const specs: ToolSpec[] = agent.tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: z.toJSONSchema(t.schema) as Record<string, unknown>,
    }));
    for (const sub of agent.subagents ?? []) {
      specs.push({
        name: delegateToolName(sub),
        description: sub.description ?? `Delegate a task to ${sub.name}`,
        parameters: { type: "object", properties: { task: { type: "string" } }, required: ["task"] },
      });
    }
    this.specs = specs;
    return specs;
  }

  // The step's model call; its response is durable (post_llm) before any of its tool calls runs.
  private async callModel(): Promise<NextStep> {
    const { x } = this;
    const st = x.state;
    const snap = st.snap;
    await x.checkpoint("pre_llm", { model: x.model.normalized, provider: x.model.provider, message_count: st.messages.items.length });
    x.event("llm_called", x.model.normalized);
    let outcome: Awaited<ReturnType<typeof callWithFallback>>;
    try {
      outcome = await callWithFallback(
        x.rc.models,
        [x.agent.model, ...x.fs.fallbackModelChain],
        {
          messages: st.messages.items,
          tools: this.toolSpecs(),
          sessionToken: snap.session_token,
          checkpointToken: snap.checkpoint_token,
          context: snap.context,
          signal: x.abort.signal,
          onText: (delta) => x.event("llm_delta", delta, { text: delta }),
          responseSchema: this.outputJsonSchema(),
        },
        x.rc.config.retry,
      );
    } catch (e) {
      // Aborted mid-call: a cancel ends the run at its last durable checkpoint (pre_llm); a lost lease
      // leaves everything to the new owner.
      x.assertHeld();
      if (x.cancelRequested) return CANCELLED;
      if (x.fs.llmFailurePolicy === "retry_then_degrade" && snap.state === "running") {
        st.move("degraded");
        st.error = e instanceof Error ? e.message : String(e);
        return { type: "finish", state: "completed" };
      }
      throw e;
    }
    const r = outcome.response;
    // A final answer that is not the agent's output shape is never stored: a retry asks the model again.
    const out = r.tool_calls.length === 0 ? x.agent.outputSchema?.safeParse(r.structured) : undefined;
    if (out && !out.success) {
      const issue = out.error.issues[0];
      const at = issue.path.join(".") || "(root)";
      throw new AgentRunnerError(`the final answer does not match the output schema at ${at}: ${issue.message}`);
    }
    if (out?.success) r.structured = out.data as Record<string, unknown>;
    snap.llm_calls++;
    snap.usage = addUsage(snap.usage, r.usage);
    snap.total_cost_usd += costUsd(r.model, r.usage.input_tokens, r.usage.output_tokens);
    snap.session_token = r.session_token ?? snap.session_token;
    snap.checkpoint_token = r.checkpoint_token ?? snap.checkpoint_token;
    if (r.text) snap.final_text = r.text;
    snap.pending_llm_response = r;
    st.freshResponse = true;
    const queued = x.appendMessage({ role: "assistant", content: r.text, tool_calls: r.tool_calls, agent: x.init.agentPath });
    if (queued) await queued;
    x.event("llm_completed", r.finish_reason, { tool_call_count: r.tool_calls.length, usage: r.usage });
    const payload = {
      model: r.model,
      provider: outcome.resolved.provider,
      finish_reason: r.finish_reason,
      tool_call_count: r.tool_calls.length,
      session_token: snap.session_token,
      checkpoint_token: snap.checkpoint_token,
      total_cost_usd: snap.total_cost_usd,
    };
    await x.checkpoint("post_llm", payload, { snapshot: true, durable: true });
    return RUN_AGAIN;
  }

  // A response without calls is the final answer; otherwise its delegations, then its tool calls, run.
  private async resolveResponse(response: LlmResponse): Promise<NextStep> {
    const snap = this.x.state.snap;
    if (response.tool_calls.length > 0) return this.runCalls(response.tool_calls);
    snap.final_structured = response.structured;
    snap.pending_llm_response = null;
    return { type: "finish", state: "completed" };
  }

  // Pauses when any call waits for a decision; otherwise the results join the conversation.
  private async runCalls(calls: ToolCall[]): Promise<NextStep> {
    const { x } = this;
    const st = x.state;
    const subs = new Map((x.agent.subagents ?? []).map((s) => [delegateToolName(s), s]));
    const subCalls = calls.filter((c) => subs.has(c.name));
    const toolCalls = calls.filter((c) => !subs.has(c.name));
    const outcomes = new Map<string, CallOutcome>();
    if (subCalls.length) await runSubagentCalls(x, subCalls, subs, outcomes);
    if (toolCalls.length) await runToolBatch(x, toolCalls, outcomes);

    const waiting = calls.map((c) => outcomes.get(c.id)!).filter((o): o is { waiting: string } => "waiting" in o);
    if (waiting.length) return { type: "pause", approvalIds: waiting.map((w) => w.waiting) };

    const results = calls.map((c) => outcomes.get(c.id) as CallResult);
    const failures = results.filter((r) => r.failed).length;
    for (const r of results) {
      const queued = x.appendMessage(r.message);
      if (queued) await queued;
    }
    st.snap.pending_llm_response = null;
    st.freshResponse = false;
    if (toolCalls.length)
      await x.checkpoint("post_tool_batch", { tool_calls_total: st.snap.tool_calls, tool_failures: failures }, { snapshot: true });
    else await x.writeRuntime();
    if (failures && x.fs.toolFailurePolicy === "fail_run") throw new AgentRunnerError(`${failures} tool call(s) failed`);
    return RUN_AGAIN;
  }

  private async pause(approvalIds: string[]): Promise<AgentResult> {
    const { x } = this;
    const st = x.state;
    st.pendingApprovals = approvalIds;
    for (const id of approvalIds) await x.checkpoint("paused", { approval_id: id, waiting_for: "approval" });
    st.closeSegment();
    st.move("paused");
    await x.writeRuntime();
    await x.writer.flush();
    x.event("run_paused", `waiting for ${approvalIds.length} approval(s)`, { approval_ids: approvalIds });
    return this.result();
  }

  private async finish(to: "completed" | "cancelled" | "failed"): Promise<AgentResult> {
    const { x } = this;
    const st = x.state;
    const snap = st.snap;
    if (to === "cancelled" && (snap.state === "running" || snap.state === "paused")) st.move("cancelling");
    if (snap.state !== to) st.move(to);
    // Requests of a cancelled run would wait in every inbox for a decision that can no longer matter.
    if (to === "cancelled") await closePendingApprovals(x.rc.store, x.threadId, x.runId, Date.now(), "The run was cancelled");
    const result = this.result();
    await x.writeRuntime();
    await x.checkpoint("run_terminal", {
      state: snap.state,
      final_text: snap.final_text,
      requested_model: snap.requested_model,
      normalized_model: snap.normalized_model,
      provider_adapter: snap.provider_adapter,
      terminal_result: result,
    });
    const timeoutS = x.rc.config.checkpointFlushTimeoutS;
    if (!(await x.writer.flush(timeoutS * 1000))) {
      // The terminal record is not known to be durable: the caller must not record a clean outcome. The
      // drain goes on; whoever looks later finds either this terminal record or the checkpoint before it.
      const error = `CheckpointWriteError: terminal checkpoint not durable within ${timeoutS} s`;
      x.event("warning", "terminal checkpoint flush timed out", { timeout_s: timeoutS });
      x.event("run_failed", error);
      return { ...result, state: "failed", error, terminalDurable: false };
    }
    x.event(to === "completed" ? "run_completed" : to === "cancelled" ? "run_cancelled" : "run_failed", `run ${to}`, { error: st.error });
    return result;
  }

  private async fail(e: unknown): Promise<AgentResult> {
    const { x } = this;
    // An unreadable record is reported as exactly that, not turned into a failed run. A lost lease writes
    // nothing at all: the run belongs to whoever took it over.
    if (e instanceof FailpointError || e instanceof AgentCheckpointCorruptionError || e instanceof LeaseLostError) throw e;
    if (x.abandoned || x.writer.failed instanceof LeaseLostError) throw x.writer.failed ?? new LeaseLostError(`run ${x.runId}: lease lost`);
    x.state.error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    // A store that cannot take writes cannot take the terminal record either: the run stays at its last
    // durable checkpoint and can be resumed once the store is back.
    if (e instanceof CheckpointWriteError || x.writer.failed) {
      x.event("warning", "checkpoint write failed; run stopped at its last durable checkpoint", { error: x.state.error });
      x.event("run_failed", x.state.error);
      return { ...this.result(), state: "failed" };
    }
    if (isTerminal(x.state.snap.state)) return this.result();
    try {
      return await this.finish("failed");
    } catch (e2) {
      x.event("warning", "could not write terminal checkpoint", { error: String(e2) });
      return { ...this.result(), state: "failed" };
    }
  }

  result(): AgentResult {
    return this.x.state.toResult(this.x.runId, this.x.threadId);
  }
}
