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
import { type ToolCallOutcome, runToolBatch } from "./tool-batch.ts";

const CANCELLED: NextStep = { type: "finish", state: "cancelled" };

/**
 * One execution of one run, from its first or restored step until it pauses or ends. Writes every checkpoint through the write-behind
 * writer; the Runner is its public face.
 */
export class RunExecution {
  private readonly exec: ExecutionScope;
  private specs: ToolSpec[] | null = null;
  private outputSchemaJson: Record<string, unknown> | undefined | null = null;

  constructor(runner: RunnerContext, init: ExecutionInit, emit: (e: RunEvent) => void) {
    const model = resolveModel(init.agent.model);
    const state = init.restored ? ExecutionState.fromSnapshot(init, model, init.restored) : ExecutionState.fresh(init, model);
    this.exec = new ExecutionScope(runner, init, model, state, emit);
  }

  cancel() {
    this.exec.cancel();
  }

  abandon() {
    this.exec.abandon();
  }

  async execute(): Promise<AgentResult> {
    try {
      const restored = this.exec.init.restored;
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
    this.exec.assertHeld();
    if (this.exec.cancelRequested) return CANCELLED;
    if (!this.exec.state.snap.pending_llm_response) {
      const gate = await this.startStep();
      if (gate.type !== "run_again") return gate;
      const called = await this.callModel();
      if (called.type !== "run_again") return called;
    }
    return this.resolveResponse(this.exec.state.snap.pending_llm_response!);
  }

  private async start() {
    const { exec } = this;
    exec.state.move("running");
    const system = instructionsFor(exec.agent, exec.state.snap.context);
    if (system) await exec.appendMessage({ role: "system", content: system });
    await exec.appendMessage({ role: "user", content: exec.init.userMessage ?? "" });
    await exec.checkpoint(
      "run_started",
      {
        agent_name: exec.agent.name,
        resumed: false,
        agent_fingerprint: agentFingerprint(exec.agent),
        agent_path: exec.init.agentPath,
        root_run_id: exec.init.rootRunId,
        instance: exec.runner.config.instanceId ?? null,
      },
      { snapshot: true },
    );
    exec.event("run_started", `run ${exec.runId} started`);
  }

  private async restart(from: Pick<CheckpointRecord, "phase" | "seq">) {
    const { exec } = this;
    const st = exec.state;
    const wasPaused = st.snap.state === "paused";
    if (wasPaused) st.move("running");
    else if (st.snap.state !== "running" && st.snap.state !== "degraded") st.snap.state = "running";
    st.segmentStartMs = Date.now();
    // The run's history records who decided what, next to the point where it went on.
    const decisions = wasPaused
      ? (await listApprovals(exec.runner.store, exec.threadId, exec.runId))
          .filter((a) => a.step === st.snap.step)
          .map((a) => ({
            approval_id: a.id,
            tool_name: a.tool_name,
            status: a.status,
            decided_by: a.decisions.map((d) => d.by),
            edited: a.approved_args !== null && argsHash(a.approved_args) !== argsHash(a.args),
          }))
      : [];
    // Durable before the re-entered step's work: the run's page and a process taking over see at once that
    // it went on, and who decided what (batched, it waited behind the step's model and tool calls).
    await exec.checkpoint(
      wasPaused ? "resumed" : "run_started",
      {
        agent_name: exec.agent.name,
        resumed: true,
        from_phase: from.phase,
        from_seq: from.seq,
        instance: exec.runner.config.instanceId ?? null,
        ...(wasPaused ? { decisions } : {}),
      },
      { durable: true },
    );
    exec.event(wasPaused ? "run_resumed" : "run_started", `run ${exec.runId} resumed from ${from.phase}`);
  }

  private limitExceeded(): string | null {
    const { limits, state } = this.exec;
    if (state.snap.step >= limits.maxSteps && !state.reenterStep) return `max_steps (${limits.maxSteps}) reached`;
    if (state.snap.llm_calls >= limits.maxLlmCalls) return `max_llm_calls (${limits.maxLlmCalls}) reached`;
    if (state.activeElapsedS() > limits.maxWallTimeS) return `max_wall_time_s (${limits.maxWallTimeS}) exceeded`;
    return null;
  }

  // A new step, or the one a resume re-enters, up to the gate before its model call.
  private async startStep(): Promise<NextStep> {
    const { exec } = this;
    const st = exec.state;
    const limit = this.limitExceeded();
    if (limit) throw new AgentRunnerError(limit);
    const reentered = st.reenterStep;
    if (reentered) st.reenterStep = false;
    else st.snap.step++;
    await exec.checkpoint("step_started", { state: st.snap.state, message_count: st.messages.items.length }, { snapshot: true });
    exec.event("step_started", `step ${st.snap.step}`);
    return modelCallGate(exec, reentered);
  }

  // Converted once per execution, like the tool specs, not at every model call.
  private outputJsonSchema(): Record<string, unknown> | undefined {
    const schema = this.exec.agent.outputSchema;
    if (this.outputSchemaJson === null) this.outputSchemaJson = schema ? (z.toJSONSchema(schema) as Record<string, unknown>) : undefined;
    return this.outputSchemaJson;
  }

  private toolSpecs(): ToolSpec[] {
    if (this.specs) return this.specs;
    const agent = this.exec.agent;
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
    const { exec } = this;
    const st = exec.state;
    const snap = st.snap;
    await exec.checkpoint("pre_llm", {
      model: exec.model.normalized,
      provider: exec.model.provider,
      message_count: st.messages.items.length,
    });
    exec.event("llm_called", exec.model.normalized);
    let outcome: Awaited<ReturnType<typeof callWithFallback>>;
    try {
      outcome = await callWithFallback(
        exec.runner.models,
        [exec.agent.model, ...exec.limits.fallbackModelChain],
        {
          messages: st.messages.items,
          tools: this.toolSpecs(),
          sessionToken: snap.session_token,
          checkpointToken: snap.checkpoint_token,
          context: snap.context,
          signal: exec.abort.signal,
          onText: (delta) => exec.event("llm_delta", delta, { text: delta }),
          responseSchema: this.outputJsonSchema(),
        },
        exec.runner.config.retry,
      );
    } catch (e) {
      // Aborted mid-call: a cancel ends the run at its last durable checkpoint (pre_llm); a lost lease
      // leaves everything to the new owner.
      exec.assertHeld();
      if (exec.cancelRequested) return CANCELLED;
      if (exec.limits.llmFailurePolicy === "retry_then_degrade" && snap.state === "running") {
        st.move("degraded");
        st.error = e instanceof Error ? e.message : String(e);
        return { type: "finish", state: "completed" };
      }
      throw e;
    }
    const r = outcome.response;
    // A final answer that is not the agent's output shape is never stored: a retry asks the model again.
    const out = r.tool_calls.length === 0 ? exec.agent.outputSchema?.safeParse(r.structured) : undefined;
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
    const queued = exec.appendMessage({ role: "assistant", content: r.text, tool_calls: r.tool_calls, agent: exec.init.agentPath });
    if (queued) await queued;
    exec.event("llm_completed", r.finish_reason, { tool_call_count: r.tool_calls.length, usage: r.usage });
    const payload = {
      model: r.model,
      provider: outcome.resolved.provider,
      finish_reason: r.finish_reason,
      tool_call_count: r.tool_calls.length,
      session_token: snap.session_token,
      checkpoint_token: snap.checkpoint_token,
      total_cost_usd: snap.total_cost_usd,
    };
    await exec.checkpoint("post_llm", payload, { snapshot: true, durable: true });
    return RUN_AGAIN;
  }

  // A response without calls is the final answer; otherwise its delegations, then its tool calls, run.
  private async resolveResponse(response: LlmResponse): Promise<NextStep> {
    const snap = this.exec.state.snap;
    if (response.tool_calls.length > 0) return this.runCalls(response.tool_calls);
    snap.final_structured = response.structured;
    snap.pending_llm_response = null;
    return { type: "finish", state: "completed" };
  }

  // Pauses when any call waits for a decision; otherwise the results join the conversation.
  private async runCalls(calls: ToolCall[]): Promise<NextStep> {
    const { exec } = this;
    const st = exec.state;
    const subs = new Map((exec.agent.subagents ?? []).map((s) => [delegateToolName(s), s]));
    const subCalls = calls.filter((c) => subs.has(c.name));
    const toolCalls = calls.filter((c) => !subs.has(c.name));
    const outcomes = new Map<string, ToolCallOutcome>();
    if (subCalls.length) await runSubagentCalls(exec, subCalls, subs, outcomes);
    if (toolCalls.length) await runToolBatch(exec, toolCalls, outcomes);

    const all = calls.map((c) => outcomes.get(c.id)!);
    const waiting = all.filter((o) => o.type === "waiting");
    if (waiting.length) return { type: "pause", approvalIds: waiting.map((w) => w.approvalId) };

    const results = all.filter((o) => o.type === "result");
    const failures = results.filter((r) => r.failed).length;
    for (const r of results) {
      const queued = exec.appendMessage(r.message);
      if (queued) await queued;
    }
    st.snap.pending_llm_response = null;
    st.freshResponse = false;
    if (toolCalls.length)
      await exec.checkpoint("post_tool_batch", { tool_calls_total: st.snap.tool_calls, tool_failures: failures }, { snapshot: true });
    else await exec.writeRuntime();
    if (failures && exec.limits.toolFailurePolicy === "fail_run") throw new AgentRunnerError(`${failures} tool call(s) failed`);
    return RUN_AGAIN;
  }

  private async pause(approvalIds: string[]): Promise<AgentResult> {
    const { exec } = this;
    const st = exec.state;
    st.pendingApprovals = approvalIds;
    for (const id of approvalIds) await exec.checkpoint("paused", { approval_id: id, waiting_for: "approval" });
    st.closeSegment();
    st.move("paused");
    await exec.writeRuntime();
    await exec.writer.flush();
    exec.event("run_paused", `waiting for ${approvalIds.length} approval(s)`, { approval_ids: approvalIds });
    return this.result();
  }

  private async finish(to: "completed" | "cancelled" | "failed"): Promise<AgentResult> {
    const { exec } = this;
    const st = exec.state;
    const snap = st.snap;
    if (to === "cancelled" && (snap.state === "running" || snap.state === "paused")) st.move("cancelling");
    if (snap.state !== to) st.move(to);
    // Requests of a cancelled run would wait in every inbox for a decision that can no longer matter.
    if (to === "cancelled") await closePendingApprovals(exec.runner.store, exec.threadId, exec.runId, Date.now(), "The run was cancelled");
    const result = this.result();
    await exec.writeRuntime();
    await exec.checkpoint("run_terminal", {
      state: snap.state,
      final_text: snap.final_text,
      requested_model: snap.requested_model,
      normalized_model: snap.normalized_model,
      provider_adapter: snap.provider_adapter,
      terminal_result: result,
    });
    const timeoutS = exec.runner.config.checkpointFlushTimeoutS;
    if (!(await exec.writer.flush(timeoutS * 1000))) {
      // The terminal record is not known to be durable: the caller must not record a clean outcome. The
      // drain goes on; whoever looks later finds either this terminal record or the checkpoint before it.
      const error = `CheckpointWriteError: terminal checkpoint not durable within ${timeoutS} s`;
      exec.event("warning", "terminal checkpoint flush timed out", { timeout_s: timeoutS });
      exec.event("run_failed", error);
      return { ...result, state: "failed", error, terminalDurable: false };
    }
    exec.event(to === "completed" ? "run_completed" : to === "cancelled" ? "run_cancelled" : "run_failed", `run ${to}`, {
      error: st.error,
    });
    return result;
  }

  private async fail(e: unknown): Promise<AgentResult> {
    const { exec } = this;
    // An unreadable record is reported as exactly that, not turned into a failed run. A lost lease writes
    // nothing at all: the run belongs to whoever took it over.
    if (e instanceof FailpointError || e instanceof AgentCheckpointCorruptionError || e instanceof LeaseLostError) throw e;
    if (exec.abandoned || exec.writer.failed instanceof LeaseLostError)
      throw exec.writer.failed ?? new LeaseLostError(`run ${exec.runId}: lease lost`);
    exec.state.error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    // A store that cannot take writes cannot take the terminal record either: the run stays at its last
    // durable checkpoint and can be resumed once the store is back.
    if (e instanceof CheckpointWriteError || exec.writer.failed) {
      exec.event("warning", "checkpoint write failed; run stopped at its last durable checkpoint", { error: exec.state.error });
      exec.event("run_failed", exec.state.error);
      return { ...this.result(), state: "failed" };
    }
    if (isTerminal(exec.state.snap.state)) return this.result();
    try {
      return await this.finish("failed");
    } catch (e2) {
      exec.event("warning", "could not write terminal checkpoint", { error: String(e2) });
      return { ...this.result(), state: "failed" };
    }
  }

  result(): AgentResult {
    return this.exec.state.toResult(this.exec.runId, this.exec.threadId);
  }
}
