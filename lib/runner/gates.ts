// The gates before a model call, a tool call and a delegation (afk-runtime.md, "Human-in-the-loop"), all
// resolved by resolveGate: a request made once binds whatever the policy says now (a changed policy cannot
// turn a rejection into an execution); without one, the policy allows, denies, or makes a request, which
// is stored durably before the run pauses on it.
import { type ApprovalRecord, createApprovalRequest, expireIfDue, findApproval } from "./approvals.ts";
import { type ExecutionScope, withKeys } from "./execution-scope.ts";
import { effectInputHash } from "./effects.ts";
import { AgentRunnerError } from "./errors.ts";
import { LLM_GATE_CALL_ID } from "./ids.ts";
import { type NextStep, RUN_AGAIN } from "./next-step.ts";
import { type LlmGateFacts, type PolicyDecision, evaluatePolicy, hasGate } from "./policy.ts";

export type GateRequest = {
  /** The kind of request this gate makes. */
  kind: ApprovalRecord["kind"];
  callId: string;
  /** What the request names: the tool, the delegation, or llm_call. */
  name: string;
  /** What a reviewer sees and may edit: the tool's arguments, `{task}`, or the run's facts. */
  args: Record<string, unknown>;
  /** False when no request can exist yet (a step's first pass), so none is looked up. */
  lookup: boolean;
  /** The policy's decision when there is no request; null when no rule can apply. */
  policy: () => PolicyDecision | null;
  /** What the policy_decision event says about the call. */
  about: Record<string, unknown>;
  /** Tool calls report every decision, an allow included; the other gates only what holds the run. */
  reportAllow?: boolean;
};

export type GateOutcome =
  /** The policy allows the call as it is. */
  | { type: "allowed" }
  | { type: "denied"; reason: string }
  | { type: "waiting"; approvalId: string }
  /** A human decided (or the deadline did): approved, rejected, responded, a question answered or not. */
  | { type: "decided"; record: ApprovalRecord };

export async function resolveGate(exec: ExecutionScope, req: GateRequest): Promise<GateOutcome> {
  const snap = exec.state.snap;
  let rec = req.lookup ? await findApproval(exec.runner.store, exec.threadId, exec.runId, snap.step, req.callId) : null;
  if (!rec) {
    const d = req.policy();
    if (!d) return { type: "allowed" };
    if (d.action !== "allow" || req.reportAllow)
      exec.event("policy_decision", d.action, withKeys(req.about, { rule_id: d.ruleId, reason: d.reason }));
    if (d.action === "allow") return { type: "allowed" };
    if (d.action === "deny") return { type: "denied", reason: d.reason };
    rec = await requestApproval(exec, req, d);
  }
  rec = await expireIfDue(exec.runner.store, rec, Date.now());
  if (rec.status === "pending") return { type: "waiting", approvalId: rec.id };
  return { type: "decided", record: rec };
}

/** Why a request was turned down, as the model and the run's error say it. */
export const rejectionReason = (rec: ApprovalRecord) => rec.decisions.findLast((d) => d.decision === "reject")?.reason ?? "no reason given";

/** Who decided a request. */
export const decidersOf = (rec: ApprovalRecord) => rec.decisions.map((d) => d.by);

const lastRequestMs = new WeakMap<ExecutionScope, number>();

// Stores the request for a human's decision (idempotent: a request made before a crash is returned as it is).
async function requestApproval(exec: ExecutionScope, req: GateRequest, d: PolicyDecision): Promise<ApprovalRecord> {
  const { runner, agent, init } = exec;
  const timeoutS = d.approvalTimeoutS ?? agent.approvalTimeoutS ?? runner.config.approvalTimeoutS;
  // Strictly later than this execution's previous request, so that lists sorted by request time keep the
  // calls of one step in the model's order (a refund before the message announcing it), not by call id.
  const now = Math.max(Date.now(), (lastRequestMs.get(exec) ?? 0) + 1);
  lastRequestMs.set(exec, now);
  const context = exec.state.snap.context;
  const rec = await createApprovalRequest(runner.store, {
    kind: req.kind,
    run_id: exec.runId,
    root_run_id: init.rootRunId,
    thread_id: exec.threadId,
    step: exec.state.snap.step,
    tool_call_id: req.callId,
    tool_name: req.name,
    agent_name: agent.name,
    agent_path: init.agentPath,
    args: req.args,
    input_hash: effectInputHash(req.name, req.args),
    reason: d.reason,
    rule_id: d.ruleId,
    quorum: d.quorum,
    groups: d.groups,
    requested_at_ms: now,
    deadline_ms: timeoutS > 0 ? now + timeoutS * 1000 : null,
    fallback: req.kind === "question" ? "deny" : (agent.approvalFallback ?? runner.config.approvalFallback),
    requested_by: typeof context.submitted_by === "string" ? context.submitted_by : null,
  });
  exec.event("tool_deferred", `${req.name} needs approval`, { approval_id: rec.id, tool_call_id: req.callId, kind: req.kind });
  return rec;
}

/**
 * The gate before this step's model call. A request made for the step is looked up whenever the step is
 * re-entered; with no model-call rule and no request, nothing is read. Approved or allowed, the step goes
 * on; pending, the run pauses; denied or rejected, the run fails.
 */
export async function modelCallGate(exec: ExecutionScope, reentered: boolean): Promise<NextStep> {
  const rules = exec.agent.policy ?? [];
  if (!reentered && !hasGate(rules, "llm")) return RUN_AGAIN;
  const snap = exec.state.snap;
  const facts: LlmGateFacts = {
    model: exec.model.normalized,
    step: snap.step,
    llm_calls: snap.llm_calls,
    total_cost_usd: snap.total_cost_usd,
    total_tokens: snap.usage.total_tokens,
    message_count: exec.state.messages.items.length,
  };
  const o = await resolveGate(exec, {
    kind: "llm",
    callId: LLM_GATE_CALL_ID,
    name: "llm_call",
    args: facts,
    lookup: reentered,
    policy: () => evaluatePolicy(rules, exec.model.normalized, facts, snap.context, "llm"),
    about: { gate: "llm" },
  });
  switch (o.type) {
    case "allowed":
      return RUN_AGAIN;
    case "waiting":
      return { type: "pause", approvalIds: [o.approvalId] };
    case "denied":
      throw new AgentRunnerError(`The model call of step ${snap.step} was denied by policy: ${o.reason}`);
    case "decided":
      if (o.record.status === "approved") return RUN_AGAIN;
      throw new AgentRunnerError(`The model call of step ${snap.step} was rejected: ${rejectionReason(o.record)}`);
  }
}
