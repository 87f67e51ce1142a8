// One run's execution loop: step → LLM → tools, a checkpoint at every phase boundary, durable pauses.
import { z } from "zod";
import { type Agent, agentFingerprint, delegateTaskSchema, delegateToolName, failSafeOf, instructionsFor } from "./agent.ts";
import {
  type ApprovalRecord,
  argsHash,
  closePendingApprovals,
  createApprovalRequest,
  expireIfDue,
  findApproval,
  listApprovals,
} from "./approvals.ts";
import { CHECKPOINT_SCHEMA_VERSION, type CheckpointRecord, type Phase } from "./checkpoint.ts";
import { effectInputHash, findReplayableEffect, makeEffect } from "./effects.ts";
import { FailpointError, failpointArmed, fire } from "./failpoints.ts";
import {
  AgentCheckpointCorruptionError,
  AgentEffectIntegrityError,
  AgentRunnerError,
  CheckpointWriteError,
  LeaseLostError,
} from "./errors.ts";
import { EVENT_SCHEMA_VERSION, type RunEvent, type RunEventType } from "./events.ts";
import { type LlmResponse, type Message, type ToolCall, type Usage, addUsage, zeroUsage } from "./messages.ts";
import { callWithFallback, costUsd, resolveModel, type ToolSpec } from "./model.ts";
import { type LlmGateFacts, type PolicyDecision, evaluatePolicy, hasGate } from "./policy.ts";
import { LLM_GATE_CALL_ID } from "./ids.ts";
import type { AgentResult } from "./result.ts";
import {
  AppendLog,
  SNAPSHOT_SCHEMA_VERSION,
  type StoredSnapshot,
  type SubagentExecution,
  type ToolExecution,
  encodeSnapshot,
} from "./snapshot.ts";
import { type RunState, isTerminal, transition } from "./state.ts";
import { checkpointLatestKey, keys } from "./store.ts";
import { renderToolOutput, toolIdempotencyKey } from "./tools.ts";
import type { RunnerContext } from "./runner.ts";
import { CheckpointWriter } from "./writer.ts";

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

type ToolOutcome = { message: Extract<Message, { role: "tool" }>; failed: boolean } | { waiting: string };

const nowMs = () => Date.now();

// Phases after which a run with no pending response resumes inside the same step, before its model call.
const REENTERED = new Set<Phase>(["step_started", "pre_llm", "paused", "resumed"]);

/**
 * One execution of one run, from its first or restored step until it pauses or ends. Writes every checkpoint through the write-behind
 * writer; the Runner is its public face.
 */
export class RunExecution {
  readonly agent: Agent;
  readonly runId: string;
  readonly threadId: string;
  private readonly writer: CheckpointWriter;
  private readonly fs;
  private state: RunState = "pending";
  private step = 0;
  private seq = 0;
  private llmCalls = 0;
  private toolCalls = 0;
  private usage: Usage = zeroUsage();
  private cost = 0;
  private sessionToken: string | null = null;
  private checkpointToken: string | null = null;
  private finalText = "";
  private finalStructured: Record<string, unknown> | null = null;
  private replayed = 0;
  private startedAtS: number;
  private activeBaseS = 0;
  private segmentStartMs = nowMs();
  private pending: LlmResponse | null = null;
  private messages = new AppendLog<Message>();
  private toolExecutions = new AppendLog<ToolExecution>();
  private subagentExecutions = new AppendLog<SubagentExecution>();
  private context: Record<string, unknown>;
  private readonly model;
  private cancelRequested = false;
  private abandoned = false;
  // Aborted on cancel and on abandon; tools get it as ctx.signal.
  private readonly abort = new AbortController();
  private error: string | null = null;
  private pendingApprovals: string[] = [];
  // Resuming from step_started/pre_llm re-enters that step instead of starting a new one.
  private reenterStep = false;
  // True while the pending response came from a model call of this execution: no effect or approval can
  // exist yet for its tool calls (effect keys carry the step), so the replay lookups are skipped.
  private freshResponse = false;

  constructor(
    private readonly rc: RunnerContext,
    private readonly init: ExecutionInit,
    private readonly emit: (e: RunEvent) => void,
  ) {
    this.agent = init.agent;
    this.runId = init.runId;
    this.threadId = init.threadId;
    this.fs = failSafeOf(init.agent);
    this.model = resolveModel(init.agent.model);
    this.context = { ...init.agent.contextDefaults, ...init.context };
    this.startedAtS = nowMs() / 1000;
    const c = rc.config;
    this.writer = new CheckpointWriter(rc.store, init.threadId, {
      async: c.checkpointAsyncWrites,
      maxQueue: c.checkpointQueueMaxsize,
      coalesce: c.checkpointCoalesceRuntimeState,
    });
    const r = init.restored;
    if (r) {
      const s = r.scalars;
      Object.assign(this, {
        state: s.state,
        step: s.step,
        llmCalls: s.llm_calls,
        toolCalls: s.tool_calls,
        usage: s.usage,
        cost: s.total_cost_usd,
        sessionToken: s.session_token,
        checkpointToken: s.checkpoint_token,
        finalText: s.final_text,
        finalStructured: s.final_structured,
        replayed: s.replayed_effect_count,
        startedAtS: s.started_at_s,
        activeBaseS: s.active_elapsed_s,
        pending: r.pending,
        messages: r.messages,
        toolExecutions: r.toolExecutions,
        subagentExecutions: r.subagentExecutions,
        seq: r.latest.seq + 1,
      });
      // A pause with no pending response is a model-call gate's: its step has not called the model yet.
      this.reenterStep = !r.pending && s.step > 0 && REENTERED.has(r.latest.phase);
      this.context = { ...this.agent.contextDefaults, ...s.context, ...init.context };
    }
  }

  cancel() {
    this.cancelRequested = true;
    this.abort.abort(new Error("run cancelled"));
  }

  abandon() {
    this.abandoned = true;
    this.abort.abort(new LeaseLostError("lease lost"));
  }

  private assertHeld() {
    if (this.abandoned) throw new LeaseLostError(`run ${this.runId}: this execution lost its lease`);
  }

  private event(type: RunEventType, message: string, data: Record<string, unknown> = {}) {
    this.emit({
      type,
      runId: this.runId,
      threadId: this.threadId,
      state: this.state,
      step: this.step,
      message,
      data,
      schemaVersion: EVENT_SCHEMA_VERSION,
    });
  }

  private move(to: RunState) {
    this.state = transition(this.state, to);
  }

  private activeElapsedS() {
    return this.activeBaseS + (nowMs() - this.segmentStartMs) / 1000;
  }

  private storedSnapshot(): StoredSnapshot {
    return encodeSnapshot(
      {
        schema_version: SNAPSHOT_SCHEMA_VERSION,
        agent_name: this.agent.name,
        step: this.step,
        state: this.state,
        context: this.context,
        llm_calls: this.llmCalls,
        tool_calls: this.toolCalls,
        started_at_s: this.startedAtS,
        active_elapsed_s: this.activeElapsedS(),
        usage: this.usage,
        total_cost_usd: this.cost,
        session_token: this.sessionToken,
        checkpoint_token: this.checkpointToken,
        pending_llm_response: this.pending,
        requested_model: this.model.requested,
        normalized_model: this.model.normalized,
        provider_adapter: this.model.provider,
        final_text: this.finalText,
        final_structured: this.finalStructured,
        replayed_effect_count: this.replayed,
      },
      { messages: this.messages.ref(), tool_executions: this.toolExecutions.ref(), subagent_executions: this.subagentExecutions.ref() },
    );
  }

  private async appendMessage(m: Message) {
    const i = this.messages.append(m);
    await this.writer.enqueue(keys.message(this.runId, i), m, { text: this.messages.texts[i] });
  }

  // Writes one checkpoint record and the latest copy; with snapshot, the runtime snapshot too.
  // durable: returns only once everything queued so far is in the store.
  private async checkpoint(phase: Phase, payload: Record<string, unknown>, opts: { snapshot?: boolean; durable?: boolean } = {}) {
    this.assertHeld();
    const record: CheckpointRecord = {
      schema_version: CHECKPOINT_SCHEMA_VERSION,
      run_id: this.runId,
      thread_id: this.threadId,
      step: this.step,
      phase,
      timestamp_ms: nowMs(),
      seq: this.seq++,
      payload,
    };
    if (opts.snapshot) {
      const snap = this.storedSnapshot();
      record.payload = { ...payload, runtime_snapshot: snap };
      await this.writer.enqueue(keys.runtime(this.runId), snap, { coalescable: true });
    }
    await this.writer.enqueue(keys.checkpoint(this.runId, this.step, record.seq, phase), record);
    await this.writer.enqueue(checkpointLatestKey(this.runId), record);
    const fp = this.rc.config.failpoint;
    const hit = failpointArmed(fp, phase, this.step, this.agent.name);
    if (opts.durable || hit) await this.writer.flush();
    this.event("checkpoint", phase, { phase, seq: record.seq, durable: !!(opts.durable || hit) });
    if (hit) fire(fp, this.step);
  }

  private async writeRuntime() {
    await this.writer.enqueue(keys.runtime(this.runId), this.storedSnapshot(), { coalescable: true });
  }

  async execute(): Promise<AgentResult> {
    try {
      if (!this.init.restored) await this.start();
      else await this.restart();
      return await this.loop();
    } catch (e) {
      return this.fail(e);
    }
  }

  private async start() {
    this.move("running");
    const system = instructionsFor(this.agent, this.context);
    if (system) await this.appendMessage({ role: "system", content: system });
    await this.appendMessage({ role: "user", content: this.init.userMessage ?? "" });
    await this.checkpoint(
      "run_started",
      {
        agent_name: this.agent.name,
        resumed: false,
        agent_fingerprint: agentFingerprint(this.agent),
        agent_path: this.init.agentPath,
        root_run_id: this.init.rootRunId,
        instance: this.rc.config.instanceId ?? null,
      },
      { snapshot: true },
    );
    this.event("run_started", `run ${this.runId} started`);
  }

  private async restart() {
    const wasPaused = this.state === "paused";
    if (wasPaused) this.move("running");
    else if (this.state !== "running" && this.state !== "degraded") this.state = "running";
    this.segmentStartMs = nowMs();
    // The run's history records who decided what, next to the point where it went on.
    const decisions = wasPaused
      ? (await listApprovals(this.rc.store, this.threadId, this.runId))
          .filter((a) => a.step === this.step)
          .map((a) => ({
            approval_id: a.id,
            tool_name: a.tool_name,
            status: a.status,
            decided_by: a.decisions.map((d) => d.by),
            edited: a.approved_args !== null && argsHash(a.approved_args) !== argsHash(a.args),
          }))
      : [];
    await this.checkpoint(wasPaused ? "resumed" : "run_started", {
      agent_name: this.agent.name,
      resumed: true,
      from_phase: this.init.restored!.latest.phase,
      from_seq: this.init.restored!.latest.seq,
      instance: this.rc.config.instanceId ?? null,
      ...(wasPaused ? { decisions } : {}),
    });
    this.event(wasPaused ? "run_resumed" : "run_started", `run ${this.runId} resumed from ${this.init.restored!.latest.phase}`);
  }

  private limitExceeded(): string | null {
    if (this.step >= this.fs.maxSteps && !this.reenterStep) return `max_steps (${this.fs.maxSteps}) reached`;
    if (this.llmCalls >= this.fs.maxLlmCalls) return `max_llm_calls (${this.fs.maxLlmCalls}) reached`;
    if (this.activeElapsedS() > this.fs.maxWallTimeS) return `max_wall_time_s (${this.fs.maxWallTimeS}) exceeded`;
    return null;
  }

  private specs: ToolSpec[] | null = null;

  private outputSchemaJson: Record<string, unknown> | undefined | null = null;

  // Converted once per execution, like the tool specs, not at every model call.
  private outputJsonSchema(): Record<string, unknown> | undefined {
    if (this.outputSchemaJson === null)
      this.outputSchemaJson = this.agent.outputSchema ? (z.toJSONSchema(this.agent.outputSchema) as Record<string, unknown>) : undefined;
    return this.outputSchemaJson;
  }

  private toolSpecs(): ToolSpec[] {
    if (this.specs) return this.specs;
    const specs: ToolSpec[] = this.agent.tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: z.toJSONSchema(t.schema) as Record<string, unknown>,
    }));
    for (const sub of this.agent.subagents ?? []) {
      specs.push({
        name: delegateToolName(sub),
        description: sub.description ?? `Delegate a task to ${sub.name}`,
        parameters: { type: "object", properties: { task: { type: "string" } }, required: ["task"] },
      });
    }
    this.specs = specs;
    return specs;
  }

  private async loop(): Promise<AgentResult> {
    for (;;) {
      this.assertHeld();
      if (this.cancelRequested) return this.finish("cancelled");
      if (!this.pending) {
        const limit = this.limitExceeded();
        if (limit) return this.fail(new AgentRunnerError(limit));
        const reentered = this.reenterStep;
        if (this.reenterStep) this.reenterStep = false;
        else this.step++;
        await this.checkpoint("step_started", { state: this.state, message_count: this.messages.items.length }, { snapshot: true });
        this.event("step_started", `step ${this.step}`);
        const gated = await this.llmGate(reentered);
        if (gated) return gated;
        await this.checkpoint("pre_llm", {
          model: this.model.normalized,
          provider: this.model.provider,
          message_count: this.messages.items.length,
        });
        this.event("llm_called", this.model.normalized);
        let outcome: Awaited<ReturnType<typeof callWithFallback>>;
        try {
          outcome = await callWithFallback(
            this.rc.models,
            [this.agent.model, ...this.fs.fallbackModelChain],
            {
              messages: this.messages.items,
              tools: this.toolSpecs(),
              sessionToken: this.sessionToken,
              checkpointToken: this.checkpointToken,
              context: this.context,
              signal: this.abort.signal,
              onText: (delta) => this.event("llm_delta", delta, { text: delta }),
              responseSchema: this.outputJsonSchema(),
            },
            this.rc.config.retry,
          );
        } catch (e) {
          // Aborted mid-call: a cancel ends the run at its last durable checkpoint (pre_llm); a lost lease
          // leaves everything to the new owner.
          this.assertHeld();
          if (this.cancelRequested) return this.finish("cancelled");
          if (this.fs.llmFailurePolicy === "retry_then_degrade" && this.state === "running") {
            this.move("degraded");
            this.error = e instanceof Error ? e.message : String(e);
            return this.finish("completed");
          }
          throw e;
        }
        const r = outcome.response;
        // A final answer that is not the agent's output shape is never stored: a retry asks the model again.
        const out = r.tool_calls.length === 0 ? this.agent.outputSchema?.safeParse(r.structured) : undefined;
        if (out && !out.success) {
          const issue = out.error.issues[0];
          const at = issue.path.join(".") || "(root)";
          return this.fail(new AgentRunnerError(`the final answer does not match the output schema at ${at}: ${issue.message}`));
        }
        if (out?.success) r.structured = out.data as Record<string, unknown>;
        this.llmCalls++;
        this.usage = addUsage(this.usage, r.usage);
        this.cost += costUsd(r.model, r.usage.input_tokens, r.usage.output_tokens);
        this.sessionToken = r.session_token ?? this.sessionToken;
        this.checkpointToken = r.checkpoint_token ?? this.checkpointToken;
        if (r.text) this.finalText = r.text;
        this.pending = r;
        this.freshResponse = true;
        await this.appendMessage({ role: "assistant", content: r.text, tool_calls: r.tool_calls, agent: this.init.agentPath });
        this.event("llm_completed", r.finish_reason, { tool_call_count: r.tool_calls.length, usage: r.usage });
        // The snapshot naming these tool calls is durable before any of them runs.
        await this.checkpoint(
          "post_llm",
          {
            model: r.model,
            provider: outcome.resolved.provider,
            finish_reason: r.finish_reason,
            tool_call_count: r.tool_calls.length,
            session_token: this.sessionToken,
            checkpoint_token: this.checkpointToken,
            total_cost_usd: this.cost,
          },
          { snapshot: true, durable: true },
        );
      }
      const response = this.pending!;
      if (response.tool_calls.length === 0) {
        this.finalStructured = response.structured;
        this.pending = null;
        return this.finish("completed");
      }
      const paused = await this.runBatch(response.tool_calls);
      if (paused) return paused;
    }
  }

  // The gate before the model call of this step. A request made for this step binds whatever the policy
  // says now (it is looked up whenever the step is re-entered); with no model-call rule and no request,
  // nothing is read. Returns a result when the run pauses or a rejection ends it.
  private async llmGate(reentered: boolean): Promise<AgentResult | null> {
    const rules = this.agent.policy ?? [];
    if (!reentered && !hasGate(rules, "llm")) return null;
    let rec = reentered ? await findApproval(this.rc.store, this.threadId, this.runId, this.step, LLM_GATE_CALL_ID) : null;
    if (!rec) {
      const facts: LlmGateFacts = {
        model: this.model.normalized,
        step: this.step,
        llm_calls: this.llmCalls,
        total_cost_usd: this.cost,
        total_tokens: this.usage.total_tokens,
        message_count: this.messages.items.length,
      };
      const d = evaluatePolicy(rules, this.model.normalized, facts, this.context, "llm");
      if (d.action === "allow") return null;
      this.event("policy_decision", d.action, { gate: "llm", rule_id: d.ruleId, reason: d.reason });
      if (d.action === "deny")
        return this.fail(new AgentRunnerError(`The model call of step ${this.step} was denied by policy: ${d.reason}`));
      rec = await this.requestApproval("llm", LLM_GATE_CALL_ID, "llm_call", facts, d);
    }
    rec = await expireIfDue(this.rc.store, rec, nowMs());
    if (rec.status === "pending") return this.pause([rec.id]);
    if (rec.status === "approved") return null;
    const why = rec.decisions.findLast((x) => x.decision === "reject")?.reason ?? "no reason given";
    return this.fail(new AgentRunnerError(`The model call of step ${this.step} was rejected: ${why}`));
  }

  // Stores the request for a human's decision at a gate (idempotent: a request made before a crash is
  // returned as it is).
  private async requestApproval(
    kind: ApprovalRecord["kind"],
    callId: string,
    name: string,
    args: Record<string, unknown>,
    d: PolicyDecision,
  ): Promise<ApprovalRecord> {
    const timeoutS = d.approvalTimeoutS ?? this.agent.approvalTimeoutS ?? this.rc.config.approvalTimeoutS;
    const rec = await createApprovalRequest(this.rc.store, {
      kind,
      run_id: this.runId,
      root_run_id: this.init.rootRunId,
      thread_id: this.threadId,
      step: this.step,
      tool_call_id: callId,
      tool_name: name,
      agent_name: this.agent.name,
      agent_path: this.init.agentPath,
      args,
      input_hash: effectInputHash(name, args),
      reason: d.reason,
      rule_id: d.ruleId,
      quorum: d.quorum,
      groups: d.groups,
      requested_at_ms: nowMs(),
      deadline_ms: timeoutS > 0 ? nowMs() + timeoutS * 1000 : null,
      fallback: kind === "question" ? "deny" : (this.agent.approvalFallback ?? this.rc.config.approvalFallback),
      requested_by: typeof this.context.submitted_by === "string" ? this.context.submitted_by : null,
    });
    this.event("tool_deferred", `${name} needs approval`, { approval_id: rec.id, tool_call_id: callId, kind });
    return rec;
  }

  // Runs one response's subagent and tool calls. Returns a result when the run pauses.
  private async runBatch(calls: ToolCall[]): Promise<AgentResult | null> {
    const subs = new Map((this.agent.subagents ?? []).map((s) => [delegateToolName(s), s]));
    const subCalls = calls.filter((c) => subs.has(c.name));
    const toolCalls = calls.filter((c) => !subs.has(c.name));
    const outcomes = new Map<string, ToolOutcome>();

    if (subCalls.length) {
      await this.checkpoint("pre_subagent_batch", { subagent_count: subCalls.length, subagents: subCalls.map((c) => c.name) });
      const allowed = this.init.depth < this.fs.maxSubagentDepth;
      for (const [i, c] of subCalls.entries()) {
        if (!allowed || i >= this.fs.maxSubagentFanout) {
          outcomes.set(
            c.id,
            this.toolMessage(c, false, {
              success: false,
              error: allowed ? "Subagent fan-out limit reached" : "Subagent depth limit reached",
            }),
          );
          continue;
        }
        outcomes.set(c.id, await this.gatedSubagent(subs.get(c.name)!, c));
      }
      await this.checkpoint("post_subagent_batch", {
        subagent_count: subCalls.length,
        waiting: [...outcomes.values()].filter((o) => "waiting" in o).length,
      });
    }

    if (toolCalls.length) {
      if (!this.freshResponse) await this.checkBatchIntegrity(toolCalls);
      await this.checkpoint("pre_tool_batch", { tool_call_count: toolCalls.length });
      this.event("tool_batch_started", `${toolCalls.length} tool calls`);
      const queue = [...toolCalls];
      const workers = Array.from({ length: Math.min(this.fs.maxParallelTools, queue.length) }, async () => {
        try {
          for (let c = queue.shift(); c; c = queue.shift()) outcomes.set(c.id, await this.runTool(c));
        } catch (e) {
          queue.length = 0; // no new tool starts once one failed the step
          throw e;
        }
      });
      // Tools already in flight finish and record their effects before the step fails, so a retry replays
      // them instead of running them a second time.
      const settled = await Promise.allSettled(workers);
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
      if (failed) throw failed.reason;
    }

    const waiting = calls.map((c) => outcomes.get(c.id)!).filter((o): o is { waiting: string } => "waiting" in o);
    if (waiting.length) return this.pause(waiting.map((w) => w.waiting));

    const results = calls.map((c) => outcomes.get(c.id) as Exclude<ToolOutcome, { waiting: string }>);
    const failures = results.filter((r) => r.failed).length;
    for (const r of results) await this.appendMessage(r.message);
    this.pending = null;
    this.freshResponse = false;
    if (toolCalls.length)
      await this.checkpoint("post_tool_batch", { tool_calls_total: this.toolCalls, tool_failures: failures }, { snapshot: true });
    else await this.writeRuntime();
    if (failures && this.fs.toolFailurePolicy === "fail_run") throw new AgentRunnerError(`${failures} tool call(s) failed`);
    return null;
  }

  // Before any tool of a re-entered batch runs, every stored effect must match the call it would replay
  // (with a reviewer's approved args where there are some): a mismatch means the run is not what it was.
  private async checkBatchIntegrity(calls: ToolCall[]) {
    for (const c of calls) {
      const tool = this.agent.tools.find((t) => t.name === c.name);
      const parsed = tool?.schema.safeParse(c.args);
      if (!parsed?.success) continue;
      const approval = await findApproval(this.rc.store, this.threadId, this.runId, this.step, c.id);
      const args = (approval?.status === "approved" && approval.approved_args) || parsed.data;
      await findReplayableEffect(this.rc.store, this.threadId, this.runId, this.step, c.id, c.name, args);
    }
  }

  private toolMessage(c: ToolCall, success: boolean, payload: unknown): Extract<ToolOutcome, { message: unknown }> {
    const content = renderToolOutput(payload, this.rc.config.toolOutputMaxChars);
    return { message: { role: "tool", tool_call_id: c.id, name: c.name, content, success, untrusted: true }, failed: !success };
  }

  private async runTool(c: ToolCall): Promise<ToolOutcome> {
    const tool = this.agent.tools.find((t) => t.name === c.name);
    if (!tool) return this.toolMessage(c, false, { success: false, error: `Unknown tool ${c.name}` });
    const parsed = tool.schema.safeParse(c.args);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return this.toolMessage(c, false, { success: false, error: `Invalid arguments: ${issue.path.join(".")}: ${issue.message}` });
    }
    let args = parsed.data as Record<string, unknown>;
    // A call that was ever put to a human is decided by that request, whatever the policy says now: a
    // rejection binds (a changed policy cannot turn it into an execution), and so do approved arguments.
    let rec: ApprovalRecord | null = this.freshResponse
      ? null
      : await findApproval(this.rc.store, this.threadId, this.runId, this.step, c.id);
    let approvedBy: string[] = [];
    // A question always goes to a reviewer; the policy has nothing to allow or deny.
    const decision = rec
      ? null
      : tool.asksHuman
        ? {
            action: "require_approval" as const,
            ruleId: null,
            reason: "The agent asks a reviewer",
            quorum: 1,
            approvalTimeoutS: undefined,
            groups: tool.asksHuman.groups ?? [],
          }
        : evaluatePolicy(this.agent.policy ?? [], c.name, args, this.context);
    if (decision)
      this.event("policy_decision", decision.action, {
        tool_call_id: c.id,
        tool_name: c.name,
        rule_id: decision.ruleId,
        reason: decision.reason,
      });
    if (decision?.action === "deny") return this.recordSkipped(c, `Denied by policy: ${decision.reason}`);
    if (rec || decision?.action === "require_approval") {
      if (!rec && decision) rec = await this.requestApproval(tool.asksHuman ? "question" : "tool", c.id, c.name, args, decision);
      rec = await expireIfDue(this.rc.store, rec!, nowMs());
      if (rec.status === "pending") return { waiting: rec.id };
      const deciders = rec.decisions.map((d) => d.by);
      if (rec.kind === "question") return this.recordAnswer(c, rec, deciders);
      if (rec.status === "responded") {
        const answer = rec.decisions.findLast((d) => d.decision === "respond")?.reason ?? "";
        return this.recordResponse(c, answer, deciders);
      }
      if (rec.status !== "approved") {
        const why = rec.decisions.findLast((d) => d.decision === "reject")?.reason ?? "no reason given";
        if (this.fs.approvalDenialPolicy === "fail_run") throw new AgentRunnerError(`Approval denied for ${c.name}: ${why}`);
        return this.recordSkipped(c, `Approval denied: ${why}`, deciders);
      }
      args = rec.approved_args ?? rec.args;
      approvedBy = deciders;
    }
    return this.executeTool(c, tool, args, approvedBy);
  }

  // A reviewer answered in the tool's place: the tool does not run; the model gets the answer as its result.
  private async recordResponse(c: ToolCall, answer: string, by: string[]): Promise<ToolOutcome> {
    const output = { reviewer_response: answer };
    const i = this.toolExecutions.append({
      tool_name: c.name,
      tool_call_id: c.id,
      success: true,
      output,
      error: null,
      latency_ms: 0,
      agent_path: this.init.agentPath,
      replayed: false,
      approved_by: by,
    });
    await this.writer.enqueue(keys.toolExecution(this.runId, i), this.toolExecutions.items[i], { text: this.toolExecutions.texts[i] });
    this.event("tool_completed", "answered by a reviewer", { tool_call_id: c.id, tool_name: c.name, success: true, responded: true });
    return this.toolMessage(c, true, `A reviewer answered instead of running ${c.name}: ${answer}`);
  }

  // A question's outcome is the call's result: the answer, or why there is none (declined, deadline).
  // Not a tool failure either way: the model asked and learned something.
  private async recordAnswer(c: ToolCall, rec: ApprovalRecord, by: string[]): Promise<ToolOutcome> {
    const d = rec.decisions.at(-1);
    const output =
      rec.status === "responded"
        ? { answered: true, answer: d?.answer ?? d?.reason ?? "", by: d?.by ?? null }
        : {
            answered: false,
            reason: rec.status === "expired" ? "No answer before the deadline" : `Declined: ${d?.reason ?? "no reason given"}`,
          };
    const i = this.toolExecutions.append({
      tool_name: c.name,
      tool_call_id: c.id,
      success: true,
      output,
      error: null,
      latency_ms: 0,
      agent_path: this.init.agentPath,
      replayed: false,
      approved_by: by,
    });
    await this.writer.enqueue(keys.toolExecution(this.runId, i), this.toolExecutions.items[i], { text: this.toolExecutions.texts[i] });
    this.event("tool_completed", "answered" in output && output.answered ? "answered by a reviewer" : "not answered", {
      tool_call_id: c.id,
      tool_name: c.name,
      success: true,
      responded: rec.status === "responded",
    });
    return this.toolMessage(c, true, output);
  }

  private async recordSkipped(c: ToolCall, error: string, by: string[] = []): Promise<ToolOutcome> {
    const i = this.toolExecutions.append({
      tool_name: c.name,
      tool_call_id: c.id,
      success: false,
      output: null,
      error,
      latency_ms: 0,
      agent_path: this.init.agentPath,
      replayed: false,
      approved_by: by,
    });
    await this.writer.enqueue(keys.toolExecution(this.runId, i), this.toolExecutions.items[i], { text: this.toolExecutions.texts[i] });
    this.event("tool_completed", error, { tool_call_id: c.id, tool_name: c.name, success: false });
    return this.toolMessage(c, false, { success: false, error });
  }

  private async executeTool(
    c: ToolCall,
    tool: Agent["tools"][number],
    args: Record<string, unknown>,
    approvedBy: string[],
  ): Promise<ToolOutcome> {
    const started = nowMs();
    let success: boolean;
    let output: unknown = null;
    let error: string | null = null;
    const stored = this.freshResponse
      ? null
      : await findReplayableEffect(this.rc.store, this.threadId, this.runId, this.step, c.id, c.name, args);
    if (stored) {
      this.replayed++;
      ({ success, output, error } = stored);
    } else {
      if (this.toolCalls >= this.fs.maxToolCalls) throw new AgentRunnerError(`max_tool_calls (${this.fs.maxToolCalls}) reached`);
      // A worker that stalled past its lease learns it here, before the side effect, not after.
      this.assertHeld();
      await this.rc.store.assertFence?.();
      this.toolCalls++;
      try {
        output = await tool.execute(args, {
          runId: this.runId,
          threadId: this.threadId,
          step: this.step,
          toolCallId: c.id,
          agentPath: this.init.agentPath,
          context: this.context,
          idempotencyKey: toolIdempotencyKey(this.runId, this.step, c.id),
          signal: this.abort.signal,
        });
        success = true;
      } catch (e) {
        if (e instanceof AgentEffectIntegrityError || e instanceof CheckpointWriteError || e instanceof LeaseLostError) throw e;
        success = false;
        error = e instanceof Error ? e.message : String(e);
      }
      const fp = this.rc.config.failpoint;
      if (failpointArmed(fp, "tool_executed", this.step, this.agent.name)) {
        await this.writer.flush();
        fire(fp, this.step);
      }
      const effect = makeEffect({
        run_id: this.runId,
        step: this.step,
        tool_call_id: c.id,
        tool_name: c.name,
        args,
        output,
        error,
        success,
        timestamp_ms: nowMs(),
      });
      await this.writer.enqueue(keys.effect(this.runId, this.step, c.id), effect);
      await this.writer.flush();
    }
    const rec: ToolExecution = {
      tool_name: c.name,
      tool_call_id: c.id,
      success,
      output,
      error,
      latency_ms: nowMs() - started,
      agent_path: this.init.agentPath,
      replayed: !!stored,
      approved_by: approvedBy,
    };
    const i = this.toolExecutions.append(rec);
    await this.writer.enqueue(keys.toolExecution(this.runId, i), rec, { text: this.toolExecutions.texts[i] });
    this.event("tool_completed", c.name, { tool_call_id: c.id, tool_name: c.name, success, replayed: !!stored });
    return this.toolMessage(c, success, success ? output : { success: false, error });
  }

  // The gate before a delegation. As for a tool call, a request made once binds whatever the policy says
  // now; an approval may have edited the task; a response answers in the subagent's place.
  private async gatedSubagent(sub: Agent, c: ToolCall): Promise<ToolOutcome> {
    const task = typeof c.args.task === "string" ? c.args.task : JSON.stringify(c.args);
    if (this.subagentExecutions.items.some((x) => x.tool_call_id === c.id)) return this.runSubagent(sub, c, task);
    const rules = this.agent.policy ?? [];
    let rec = this.freshResponse ? null : await findApproval(this.rc.store, this.threadId, this.runId, this.step, c.id);
    if (!rec) {
      const d = hasGate(rules, "subagent") ? evaluatePolicy(rules, sub.name, { task }, this.context, "subagent") : null;
      if (!d || d.action === "allow") return this.runSubagent(sub, c, task);
      this.event("policy_decision", d.action, {
        gate: "subagent",
        tool_call_id: c.id,
        tool_name: c.name,
        rule_id: d.ruleId,
        reason: d.reason,
      });
      if (d.action === "deny") return this.recordSkipped(c, `Denied by policy: ${d.reason}`);
      rec = await this.requestApproval("subagent", c.id, c.name, { task }, d);
    }
    rec = await expireIfDue(this.rc.store, rec, nowMs());
    if (rec.status === "pending") return { waiting: rec.id };
    const by = rec.decisions.map((d) => d.by);
    if (rec.status === "responded")
      return this.recordResponse(c, rec.decisions.findLast((d) => d.decision === "respond")?.reason ?? "", by);
    if (rec.status !== "approved") {
      const why = rec.decisions.findLast((d) => d.decision === "reject")?.reason ?? "no reason given";
      if (this.fs.approvalDenialPolicy === "fail_run") throw new AgentRunnerError(`Approval denied for ${c.name}: ${why}`);
      return this.recordSkipped(c, `Approval denied: ${why}`, by);
    }
    const approved = delegateTaskSchema.safeParse(rec.approved_args ?? rec.args);
    return this.runSubagent(sub, c, approved.success ? approved.data.task : task);
  }

  private async runSubagent(sub: Agent, c: ToolCall, task: string): Promise<ToolOutcome> {
    const childId = `${this.runId}.${c.id}`;
    // A subagent that finished before the parent paused is not counted again when the batch is re-entered.
    const done = this.subagentExecutions.items.find((x) => x.tool_call_id === c.id);
    if (done)
      return this.toolMessage(
        c,
        done.success,
        done.success ? { result: done.final_text } : { success: false, error: `subagent ${done.state}` },
      );
    this.event("subagent_started", sub.name, { child_run_id: childId, tool_call_id: c.id });
    const started = nowMs();
    const child = await this.rc.runChild(sub, {
      runId: childId,
      threadId: this.threadId,
      userMessage: task,
      context: this.context,
      depth: this.init.depth + 1,
      agentPath: `${this.init.agentPath}/${sub.name}`,
      rootRunId: this.init.rootRunId,
    });
    if (child.state === "paused") return { waiting: child.pendingApprovals[0] ?? childId };
    const rec: SubagentExecution = {
      subagent: sub.name,
      run_id: childId,
      tool_call_id: c.id,
      state: child.state,
      final_text: child.finalText,
      success: child.state === "completed",
      latency_ms: nowMs() - started,
    };
    const i = this.subagentExecutions.append(rec);
    await this.writer.enqueue(keys.subagentExecution(this.runId, i), rec, { text: this.subagentExecutions.texts[i] });
    this.usage = addUsage(this.usage, {
      input_tokens: child.usage.inputTokens,
      output_tokens: child.usage.outputTokens,
      total_tokens: child.usage.totalTokens,
    });
    this.cost += child.totalCostUsd;
    this.event("subagent_completed", sub.name, { child_run_id: childId, state: child.state });
    return this.toolMessage(
      c,
      rec.success,
      rec.success ? { result: child.finalText } : { success: false, error: child.error ?? `subagent ${child.state}` },
    );
  }

  private async pause(approvalIds: string[]): Promise<AgentResult> {
    this.pendingApprovals = approvalIds;
    for (const id of approvalIds) await this.checkpoint("paused", { approval_id: id, waiting_for: "approval" });
    this.activeBaseS = this.activeElapsedS();
    this.move("paused");
    await this.writeRuntime();
    await this.writer.flush();
    this.event("run_paused", `waiting for ${approvalIds.length} approval(s)`, { approval_ids: approvalIds });
    return this.result();
  }

  private async finish(to: "completed" | "cancelled" | "failed"): Promise<AgentResult> {
    if (to === "cancelled" && (this.state === "running" || this.state === "paused")) this.move("cancelling");
    if (this.state !== to) this.move(to);
    // Requests of a cancelled run would wait in every inbox for a decision that can no longer matter.
    if (to === "cancelled") await closePendingApprovals(this.rc.store, this.threadId, this.runId, nowMs(), "The run was cancelled");
    const result = this.result();
    await this.writeRuntime();
    await this.checkpoint("run_terminal", {
      state: this.state,
      final_text: this.finalText,
      requested_model: this.model.requested,
      normalized_model: this.model.normalized,
      provider_adapter: this.model.provider,
      terminal_result: result,
    });
    const flushed = await this.writer.flush(this.rc.config.checkpointFlushTimeoutS * 1000);
    if (!flushed) {
      // The terminal record is not known to be durable: the caller must not record a clean outcome. The
      // drain goes on; whoever looks later finds either this terminal record or the checkpoint before it.
      const error = `CheckpointWriteError: terminal checkpoint not durable within ${this.rc.config.checkpointFlushTimeoutS} s`;
      this.event("warning", "terminal checkpoint flush timed out", { timeout_s: this.rc.config.checkpointFlushTimeoutS });
      this.event("run_failed", error);
      return { ...result, state: "failed", error, terminalDurable: false };
    }
    this.event(to === "completed" ? "run_completed" : to === "cancelled" ? "run_cancelled" : "run_failed", `run ${to}`, {
      error: this.error,
    });
    return result;
  }

  private async fail(e: unknown): Promise<AgentResult> {
    // An unreadable record is reported as exactly that, not turned into a failed run. A lost lease writes
    // nothing at all: the run belongs to whoever took it over.
    if (e instanceof FailpointError || e instanceof AgentCheckpointCorruptionError || e instanceof LeaseLostError) throw e;
    if (this.abandoned || this.writer.failed instanceof LeaseLostError)
      throw this.writer.failed ?? new LeaseLostError(`run ${this.runId}: lease lost`);
    this.error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    // A store that cannot take writes cannot take the terminal record either: the run stays at its last
    // durable checkpoint and can be resumed once the store is back.
    if (e instanceof CheckpointWriteError || this.writer.failed) {
      this.event("warning", "checkpoint write failed; run stopped at its last durable checkpoint", { error: this.error });
      this.event("run_failed", this.error);
      return { ...this.result(), state: "failed" };
    }
    if (isTerminal(this.state)) return this.result();
    try {
      return await this.finish("failed");
    } catch (e2) {
      this.event("warning", "could not write terminal checkpoint", { error: String(e2) });
      return { ...this.result(), state: "failed" };
    }
  }

  result(): AgentResult {
    const elapsed = this.state === "paused" ? this.activeBaseS : this.activeElapsedS();
    return {
      runId: this.runId,
      threadId: this.threadId,
      state: this.state,
      finalText: this.finalText,
      finalStructured: this.finalStructured,
      requestedModel: this.model.requested,
      normalizedModel: this.model.normalized,
      providerAdapter: this.model.provider,
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
      subagentExecutions: this.subagentExecutions.items.map((s) => ({
        subagent: s.subagent,
        runId: s.run_id,
        toolCallId: s.tool_call_id,
        state: s.state,
        finalText: s.final_text,
        success: s.success,
        latencyMs: s.latency_ms,
      })),
      usage: { inputTokens: this.usage.input_tokens, outputTokens: this.usage.output_tokens, totalTokens: this.usage.total_tokens },
      totalCostUsd: this.cost,
      sessionToken: this.sessionToken,
      checkpointToken: this.checkpointToken,
      stateSnapshot: {
        state: this.state,
        step: this.step,
        llmCalls: this.llmCalls,
        toolCalls: this.toolCalls,
        startedAtS: this.startedAtS,
        elapsedS: elapsed,
        replayedEffectCount: this.replayed,
      },
      error: this.error,
      pendingApprovals: this.pendingApprovals,
    };
  }
}
