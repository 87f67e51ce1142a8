// A response's tool calls: each one gated, then executed or replayed from the effect journal, in a pool of
// at most maxParallelTools workers. Every outcome of a call (executed, replayed, skipped, answered by a
// reviewer) is recorded once, by recordToolExecution, in the run's tool-execution log.
import type { Agent } from "./agent.ts";
import { type ApprovalRecord, findApproval } from "./approvals.ts";
import type { ExecutionScope } from "./execution-scope.ts";
import { findReplayableEffect, makeEffect, storedEffect } from "./effects.ts";
import { AgentEffectIntegrityError, AgentRunnerError, CheckpointWriteError, LeaseLostError } from "./errors.ts";
import { failpointArmed, fire } from "./failpoints.ts";
import { type GateRequest, decidersOf, rejectionReason, resolveGate } from "./gates.ts";
import type { Message, ToolCall } from "./messages.ts";
import { type PolicyDecision, evaluatePolicy } from "./policy.ts";
import type { ToolExecution } from "./runtime-snapshot.ts";
import { keys } from "./store.ts";
import { renderToolOutput, toolIdempotencyKey } from "./tools.ts";

/** A call's result for the model, or the approval request (or subagent's) it waits for. */
export type ToolCallOutcome = CallResult | { type: "waiting"; approvalId: string };
/** The tool message the model gets for a call, and whether the call failed. Only `message` is stored. */
export type CallResult = { type: "result"; message: Extract<Message, { role: "tool" }>; failed: boolean };

export function toolMessage(exec: ExecutionScope, c: ToolCall, success: boolean, payload: unknown): CallResult {
  const content = renderToolOutput(payload, exec.runner.config.toolOutputMaxChars);
  return {
    type: "result",
    message: { role: "tool", tool_call_id: c.id, name: c.name, content, success, untrusted: true },
    failed: !success,
  };
}

type Recorded = Pick<ToolExecution, "success" | "output" | "error"> &
  Partial<Pick<ToolExecution, "latency_ms" | "replayed" | "approved_by">>;

/**
 * Records what became of a tool call, announces it (tool_completed: note, and extra facts), and returns the
 * model's message: payload, by default the output or the error.
 */
export async function recordToolExecution(
  exec: ExecutionScope,
  c: ToolCall,
  r: Recorded,
  note: string,
  extra: Record<string, unknown> = {},
  payload: unknown = r.success ? r.output : { success: false, error: r.error },
): Promise<CallResult> {
  const queued = exec.append(exec.state.toolExecutions, keys.toolExecution, {
    tool_name: c.name,
    tool_call_id: c.id,
    success: r.success,
    output: r.output,
    error: r.error,
    latency_ms: r.latency_ms ?? 0,
    agent_path: exec.init.agentPath,
    replayed: r.replayed ?? false,
    approved_by: r.approved_by ?? [],
  });
  if (queued) await queued;
  exec.event("tool_completed", note, { tool_call_id: c.id, tool_name: c.name, success: r.success, ...extra });
  return toolMessage(exec, c, r.success, payload);
}

const skipped = (exec: ExecutionScope, c: ToolCall, error: string, by: string[] = []) =>
  recordToolExecution(exec, c, { success: false, output: null, error, approved_by: by }, error);

/** A gated call either runs (with the arguments a reviewer approved, and who did) or is settled: it has its outcome. */
export type CallGate = { type: "run"; args: Record<string, unknown>; by: string[] } | { type: "settled"; outcome: ToolCallOutcome };

/**
 * The gate of a tool call or a delegation. A call that was ever put to a human is decided by that request:
 * a rejection skips it (or fails the run), a reviewer's response or a question's answer is its result.
 */
export async function gateCall(exec: ExecutionScope, c: ToolCall, req: Omit<GateRequest, "callId" | "name" | "lookup">): Promise<CallGate> {
  const { kind, args, policy, about, reportAllow } = req;
  const o = await resolveGate(exec, {
    kind,
    callId: c.id,
    name: c.name,
    args,
    lookup: !exec.state.freshResponse,
    policy,
    about,
    reportAllow,
  });
  const done = (outcome: ToolCallOutcome): CallGate => ({ type: "settled", outcome });
  switch (o.type) {
    case "allowed":
      return { type: "run", args, by: [] };
    case "waiting":
      return done({ type: "waiting", approvalId: o.approvalId });
    case "denied":
      return done(await skipped(exec, c, `Denied by policy: ${o.reason}`));
    case "decided": {
      const rec = o.record;
      const by = decidersOf(rec);
      if (rec.kind === "question") return done(await recordAnswer(exec, c, rec, by));
      if (rec.status === "responded") {
        // A reviewer answered in the call's place: it does not run; the model gets the answer as its result.
        const answer = rec.decisions.findLast((d) => d.decision === "respond")?.reason ?? "";
        const text = `A reviewer answered instead of running ${c.name}: ${answer}`;
        const r = { success: true, output: { reviewer_response: answer }, error: null, approved_by: by };
        return done(await recordToolExecution(exec, c, r, "answered by a reviewer", { responded: true }, text));
      }
      if (rec.status !== "approved") {
        const why = rejectionReason(rec);
        if (exec.limits.approvalDenialPolicy === "fail_run") throw new AgentRunnerError(`Approval denied for ${c.name}: ${why}`);
        return done(await skipped(exec, c, `Approval denied: ${why}`, by));
      }
      return { type: "run", args: rec.approved_args ?? rec.args, by };
    }
  }
}

// A question's outcome is the call's result: the answer, or why there is none (declined, deadline).
// Not a tool failure either way: the model asked and learned something.
function recordAnswer(exec: ExecutionScope, c: ToolCall, rec: ApprovalRecord, by: string[]) {
  const d = rec.decisions.at(-1);
  const answered = rec.status === "responded";
  const output = answered
    ? { answered: true, answer: d?.answer ?? d?.reason ?? "", by: d?.by ?? null }
    : { answered: false, reason: rec.status === "expired" ? "No answer before the deadline" : `Declined: ${rejectionReason(rec)}` };
  const r = { success: true, output, error: null, approved_by: by };
  return recordToolExecution(exec, c, r, answered ? "answered by a reviewer" : "not answered", { responded: answered });
}

// A question always goes to a reviewer; the policy has nothing to allow or deny.
const asksReviewer = (tool: Agent["tools"][number]): PolicyDecision => ({
  action: "require_approval",
  ruleId: null,
  reason: "The agent asks a reviewer",
  quorum: 1,
  approvalTimeoutS: undefined,
  groups: tool.asksHuman?.groups ?? [],
});

async function runTool(exec: ExecutionScope, c: ToolCall): Promise<ToolCallOutcome> {
  const tool = exec.agent.tools.find((t) => t.name === c.name);
  if (!tool) return toolMessage(exec, c, false, { success: false, error: `Unknown tool ${c.name}` });
  const parsed = tool.schema.safeParse(c.args);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return toolMessage(exec, c, false, { success: false, error: `Invalid arguments: ${issue.path.join(".")}: ${issue.message}` });
  }
  const args = parsed.data as Record<string, unknown>;
  const g = await gateCall(exec, c, {
    kind: tool.asksHuman ? "question" : "tool",
    args,
    policy: () => (tool.asksHuman ? asksReviewer(tool) : evaluatePolicy(exec.agent.policy ?? [], c.name, args, exec.state.snap.context)),
    about: { tool_call_id: c.id, tool_name: c.name },
    reportAllow: true,
  });
  return g.type === "run" ? executeTool(exec, c, tool, g.args, g.by) : g.outcome;
}

// Replays the call's stored effect when there is one; otherwise executes the tool and journals the effect
// durably before the outcome is recorded.
async function executeTool(
  exec: ExecutionScope,
  c: ToolCall,
  tool: Agent["tools"][number],
  args: Record<string, unknown>,
  approvedBy: string[],
): Promise<CallResult> {
  const snap = exec.state.snap;
  const started = Date.now();
  let success: boolean;
  let output: unknown = null;
  let error: string | null = null;
  const store = exec.runner.store;
  const stored = exec.state.freshResponse
    ? null
    : await findReplayableEffect(store, exec.threadId, exec.runId, snap.step, c.id, c.name, args);
  if (stored) {
    snap.replayed_effect_count++;
    ({ success, output, error } = stored);
  } else {
    if (snap.tool_calls >= exec.limits.maxToolCalls) throw new AgentRunnerError(`max_tool_calls (${exec.limits.maxToolCalls}) reached`);
    // A worker that stalled past its lease learns it here, before the side effect, not after.
    exec.assertHeld();
    await store.assertFence?.();
    snap.tool_calls++;
    try {
      output = await tool.execute(args, {
        runId: exec.runId,
        threadId: exec.threadId,
        step: snap.step,
        toolCallId: c.id,
        agentPath: exec.init.agentPath,
        context: snap.context,
        idempotencyKey: toolIdempotencyKey(exec.runId, snap.step, c.id),
        signal: exec.abort.signal,
      });
      success = true;
    } catch (e) {
      if (e instanceof AgentEffectIntegrityError || e instanceof CheckpointWriteError || e instanceof LeaseLostError) throw e;
      success = false;
      error = e instanceof Error ? e.message : String(e);
    }
    const fp = exec.runner.config.failpoint;
    if (failpointArmed(fp, "tool_executed", snap.step, exec.agent.name)) {
      await exec.writer.flush();
      fire(fp, snap.step);
    }
    const effect = makeEffect({
      run_id: exec.runId,
      step: snap.step,
      tool_call_id: c.id,
      tool_name: c.name,
      args,
      output,
      error,
      success,
      timestamp_ms: Date.now(),
    });
    const key = keys.effect(exec.runId, snap.step, c.id);
    const queued = exec.writer.enqueue(key, storedEffect(key, effect));
    if (queued) await queued;
    await exec.writer.flush();
  }
  const r = { success, output, error, latency_ms: Date.now() - started, replayed: !!stored, approved_by: approvedBy };
  return recordToolExecution(exec, c, r, c.name, { replayed: !!stored, latency_ms: r.latency_ms });
}

// Before any tool of a re-entered batch runs, every stored effect must match the call it would replay
// (with a reviewer's approved args where there are some): a mismatch means the run is not what it was.
async function checkBatchIntegrity(exec: ExecutionScope, calls: ToolCall[]) {
  for (const c of calls) {
    const tool = exec.agent.tools.find((t) => t.name === c.name);
    const parsed = tool?.schema.safeParse(c.args);
    if (!parsed?.success) continue;
    const approval = await findApproval(exec.runner.store, exec.threadId, exec.runId, exec.state.snap.step, c.id);
    const args = (approval?.status === "approved" && approval.approved_args) || parsed.data;
    await findReplayableEffect(exec.runner.store, exec.threadId, exec.runId, exec.state.snap.step, c.id, c.name, args);
  }
}

/** Runs a response's tool calls (its delegations apart), setting each call's outcome. */
export async function runToolBatch(exec: ExecutionScope, calls: ToolCall[], outcomes: Map<string, ToolCallOutcome>) {
  if (!exec.state.freshResponse) await checkBatchIntegrity(exec, calls);
  await exec.checkpoint("pre_tool_batch", { tool_call_count: calls.length });
  exec.event("tool_batch_started", `${calls.length} tool calls`);
  const queue = [...calls];
  const workers = Array.from({ length: Math.min(exec.limits.maxParallelTools, queue.length) }, async () => {
    try {
      for (let c = queue.shift(); c; c = queue.shift()) outcomes.set(c.id, await runTool(exec, c));
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
