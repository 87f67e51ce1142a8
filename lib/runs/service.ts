// Everything a person (or an API token) can do with runs, checked against their role, audited, and mapped
// to typed HTTP errors. Routes and server actions are thin wrappers around these functions.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db } from "../db/client.ts";
import { type Actor, requirePermission } from "../auth/actor.ts";
import { can } from "../auth/roles.ts";
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from "../auth/errors.ts";
import { appendAudit } from "../audit/queries.ts";
import { intParam, parseOr400 } from "../validation.ts";
import { type Agent, ApprovalDecisionError, type CheckpointRecord, RunRewindError, decideApproval, getApproval, keys, storedSnapshotSchema } from "../runner/index.ts";
import type { RunExecutor } from "./executor.ts";
import { PrismaStore } from "../store/prisma-store.ts";
import { checkpointBySeq, checkpointTimeline, checkpointTimestamp, countCheckpoints, countPendingApprovals, createRunRow, getRunRow, listRunRows, pendingApprovals, setRunState, snapshotCheckpointAtOrBefore, webhookDeliveries } from "./queries.ts";
import { decisionSchema, forkSchema, inboxFiltersSchema, runFiltersSchema, startRunSchema, timelineQuerySchema } from "./schemas.ts";
import { type ApprovalView, type ConversationView, type Corruption, approvalsOf, argChanges, conversationOf, corruptionOf, pendingApprovalsOf } from "./view.ts";

type RunRow = NonNullable<Awaited<ReturnType<typeof getRunRow>>>;

// ---- Agents ----

function allAgents(ex: RunExecutor): Agent[] {
  const seen = new Map<string, Agent>();
  const visit = (a: Agent) => {
    if (seen.has(a.name)) return;
    seen.set(a.name, a);
    for (const s of a.subagents ?? []) visit(s);
  };
  for (const a of Object.values(ex.rt.agents) as Agent[]) visit(a);
  return [...seen.values()];
}

export const agentNames = (ex: RunExecutor) => allAgents(ex).map((a) => a.name).sort();

const toolsOf = (ex: RunExecutor) => (name: string) => allAgents(ex).find((a) => a.name === name)?.tools ?? [];

export function agentCatalog(ex: RunExecutor) {
  return (Object.values(ex.rt.agents) as Agent[])
    .filter((a) => a.inputSchema)
    .map((a) => ({ name: a.name, description: a.description ?? "", inputSchema: z.toJSONSchema(a.inputSchema!) as Record<string, unknown> }));
}

// ---- Visibility ----

function visible(actor: Actor, run: RunRow): boolean {
  return can(actor.role, "runs:read-all") || run.submittedById === actor.id;
}

async function visibleRun(db: Db, actor: Actor | null, runId: string): Promise<RunRow> {
  if (!actor) throw new UnauthorizedError();
  if (!can(actor.role, "runs:read-all") && !can(actor.role, "runs:start")) throw new ForbiddenError();
  const run = await getRunRow(db, runId);
  // Someone else's run is as invisible to a submitter as one that does not exist.
  if (!run || !visible(actor, run)) throw new NotFoundError("No such run");
  return run;
}

// ---- Start ----

export async function startRun(db: Db, ex: RunExecutor, actor: Actor | null, body: unknown) {
  const who = requirePermission(actor, "runs:start");
  const { agent: name, input } = parseOr400(startRunSchema, body);
  const agent = (ex.rt.agents as Record<string, Agent>)[name];
  if (!agent?.inputSchema) throw new ValidationError("agent", `Unknown agent ${name}`);
  const parsed = agent.inputSchema.strict().safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length ? issue.path.join(".") : issue.code === "unrecognized_keys" ? String((issue as { keys?: string[] }).keys?.[0]) : "";
    throw new ValidationError(field ? `input.${field}` : "input", issue.message);
  }
  const id = randomUUID();
  await db.$transaction(async (tx) => {
    await createRunRow(tx as Db, { id, agentName: name, input: parsed.data, submittedById: who.id, submittedByEmail: who.email });
    await appendAudit(tx, { actor: who, action: "run.start", targetType: "run", targetId: id, data: { agent: name, input: parsed.data } });
  });
  await ex.start(id);
  return { id };
}

// ---- Lists ----

export async function listRuns(db: Db, actor: Actor | null, query: unknown) {
  if (!actor) throw new UnauthorizedError();
  const all = can(actor.role, "runs:read-all");
  if (!all && !can(actor.role, "runs:start")) throw new ForbiddenError();
  const f = parseOr400(runFiltersSchema, query);
  return listRunRows(db, { ...f, onlySubmittedById: all ? undefined : actor.id });
}

const summarize = (args: Record<string, unknown>) =>
  Object.entries(args)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" · ")
    .slice(0, 300);

export async function listInbox(db: Db, actor: Actor | null, query: unknown) {
  const who = requirePermission(actor, "approvals:decide");
  const f = parseOr400(inboxFiltersSchema, query);
  const approvals = await pendingApprovals(db, f);
  const roots = await db.run.findMany({ where: { id: { in: [...new Set(approvals.map((a) => a.root_run_id))] } }, select: { id: true, agentName: true, submittedByEmail: true } });
  const byId = new Map(roots.map((r) => [r.id, r]));
  return {
    approvals: approvals.map((a) => ({
      id: a.id,
      runId: a.root_run_id,
      subRunId: a.run_id === a.root_run_id ? null : a.run_id,
      agent: a.agent_name,
      rootAgent: byId.get(a.root_run_id)?.agentName ?? a.agent_name,
      tool: a.tool_name,
      summary: summarize(a.approved_args ?? a.args),
      reason: a.reason,
      requestedBy: a.requested_by ?? byId.get(a.root_run_id)?.submittedByEmail ?? null,
      requestedAtMs: a.requested_at_ms,
      deadlineMs: a.deadline_ms,
      quorum: a.quorum,
      approvals: a.decisions.filter((d) => d.decision === "approve").length,
      decidedByMe: a.decisions.some((d) => d.by === who.email),
    })),
  };
}

export async function pendingCount(db: Db, actor: Actor | null) {
  requirePermission(actor, "approvals:decide");
  return { pending: await countPendingApprovals(db) };
}

// ---- The run page ----

export type RunView = {
  run: Omit<RunRow, "input"> & { input: unknown };
  corruption: Corruption | null;
  conversation: ConversationView | null;
  approvals: ApprovalView[];
  checkpointCount: number;
  canResume: boolean;
  permissions: { decide: boolean; operate: boolean };
  selfApprovalForbidden: boolean;
  deliveries: Awaited<ReturnType<typeof webhookDeliveries>>;
};

export async function getRunView(db: Db, ex: RunExecutor, actor: Actor | null, runId: string): Promise<RunView> {
  const run = await visibleRun(db, actor, runId);
  let conversation: ConversationView | null = null;
  let approvals: ApprovalView[] = [];
  let corruption: Corruption | null = null;
  try {
    if (run.state !== "pending") {
      conversation = await conversationOf(ex.rt.store, run.threadId, run.id);
      approvals = await approvalsOf(ex.rt.store, run.threadId, run.id, toolsOf(ex));
    }
  } catch (e) {
    corruption = corruptionOf(e);
    if (!corruption) throw e;
  }
  const { input, ...rest } = run;
  const agent = (ex.rt.agents as Record<string, Agent>)[run.agentName];
  return {
    run: { ...rest, input: JSON.parse(input) },
    corruption,
    conversation,
    approvals,
    checkpointCount: await countCheckpoints(db, run.threadId, run.id),
    canResume: !corruption && run.state === "paused" && approvals.every((a) => a.status !== "pending"),
    permissions: { decide: can(actor!.role, "approvals:decide"), operate: can(actor!.role, "runs:operate") },
    selfApprovalForbidden: !agent?.allowSelfApproval && run.submittedById === actor!.id,
    deliveries: await webhookDeliveries(db, run.id),
  };
}

// ---- Decisions ----

function approvalError(e: unknown, current: unknown): never {
  if (!(e instanceof ApprovalDecisionError)) throw e;
  switch (e.code) {
    case "not_found":
      throw new NotFoundError(e.message);
    case "forbidden":
      throw new ForbiddenError(e.message);
    case "invalid_args":
      throw new ValidationError(e.field ?? "args", e.message);
    default:
      throw new DecisionConflictError(e.message, current);
  }
}

// A 409 that carries the approval's current state, so a client sees what happened instead.
export class DecisionConflictError extends ConflictError {
  constructor(
    message: string,
    readonly current: unknown,
  ) {
    super(message);
  }
}

export async function decide(db: Db, ex: RunExecutor, actor: Actor | null, approvalId: string, body: unknown) {
  const who = requirePermission(actor, "approvals:decide");
  const input = parseOr400(decisionSchema, body);
  const sep = approvalId.indexOf(":");
  if (sep <= 0) throw new NotFoundError("No such approval");
  const runId = approvalId.slice(0, sep);
  const toolCallId = approvalId.slice(sep + 1);
  const rootId = runId.split(".")[0];
  const root = await getRunRow(db, rootId);
  if (!root) throw new NotFoundError("No such approval");
  const before = await getApproval(ex.rt.store, root.threadId, runId, toolCallId);
  if (!before) throw new NotFoundError("No such approval");
  const rootAgent = (ex.rt.agents as Record<string, Agent>)[root.agentName];
  const tool = toolsOf(ex)(before.agent_name).find((t) => t.name === before.tool_name);
  const edited = input.decision === "approve" && !!input.args;

  // The decision, its audit entry and (for agents that resume by themselves) the resume job commit
  // together when there is a queue (PostgreSQL): a crash can lose neither half. In-process (SQLite, one
  // instance) they run in sequence, and the sweep resumes a run whose resume was lost.
  const record = async (tx: Db) => {
    const store = tx === db ? ex.rt.store : new PrismaStore(tx);
    let after;
    try {
      after = await decideApproval(store, root.threadId, runId, toolCallId, tool, {
        by: who.email,
        decision: input.decision,
        reason: input.reason,
        args: input.args,
        forbiddenDeciders: rootAgent?.allowSelfApproval || !root.submittedByEmail ? [] : [root.submittedByEmail],
      });
    } catch (e) {
      approvalError(e, await getApproval(store, root.threadId, runId, toolCallId));
    }
    await appendAudit(tx, {
      actor: who,
      action: edited ? "approval.edit_approve" : `approval.${input.decision}`,
      targetType: "run",
      targetId: rootId,
      data: { approval_id: approvalId, tool: before.tool_name, decision: input.decision, reason: input.reason ?? null, before: before.approved_args ?? before.args, after: after.approved_args ?? after.args, changes: argChanges(before.args, after.approved_args), status: after.status },
    });
    let reserved = false;
    if (rootAgent?.autoResume && root.state === "paused") {
      const pending = await pendingApprovalsOf(store, root.threadId, root.id);
      reserved = !pending.length && (await ex.reserve(root.id, "paused", tx));
      if (reserved) await appendAudit(tx, { actor: null, action: "run.auto_resume", targetType: "run", targetId: root.id, data: { after: approvalId } });
      if (reserved && ex.queue) await ex.queue.send(root.id, tx);
    }
    return { approval: after, resumed: reserved };
  };
  if (!ex.queue) {
    const r = await record(db);
    if (r.resumed) await ex.dispatch(root.id);
    return r;
  }
  const r = await db.$transaction((tx) => record(tx as Db), { maxWait: 20_000, timeout: 20_000 });
  if (r.resumed) (ex.queue as { kick?: () => void }).kick?.();
  return r;
}

async function resumeIfReady(db: Db, ex: RunExecutor, run: RunRow, who: Actor | null): Promise<boolean> {
  const pending = await pendingApprovalsOf(ex.rt.store, run.threadId, run.id);
  if (pending.length) return false;
  const ok = await ex.resume(run.id);
  if (ok) await appendAudit(db, { actor: who, action: who ? "run.resume" : "run.auto_resume", targetType: "run", targetId: run.id, data: {} });
  return ok;
}

// ---- Operator actions ----

export async function resumeRun(db: Db, ex: RunExecutor, actor: Actor | null, runId: string) {
  if (!actor) throw new UnauthorizedError();
  if (!can(actor.role, "approvals:decide") && !can(actor.role, "runs:operate")) throw new ForbiddenError();
  const run = await visibleRun(db, actor, runId);
  if (run.state !== "paused") throw new ConflictError(`Run is ${run.state}, not paused`);
  const pending = await pendingApprovalsOf(ex.rt.store, run.threadId, run.id);
  if (pending.length) throw new ConflictError(`${pending.length} approval(s) still pending`);
  if (!(await resumeIfReady(db, ex, run, actor))) throw new ConflictError("Run was resumed by someone else");
  return { id: run.id, resumed: true };
}

export async function cancelRun(db: Db, ex: RunExecutor, actor: Actor | null, runId: string) {
  const who = requirePermission(actor, "runs:operate");
  const run = await visibleRun(db, who, runId);
  if (run.state !== "running" && run.state !== "paused") throw new ConflictError(`Run is ${run.state}; only running or paused runs can be cancelled`);
  if (!(await ex.cancel(run.id))) throw new ConflictError("Run is not executing on this instance and is not paused");
  await appendAudit(db, { actor: who, action: "run.cancel", targetType: "run", targetId: run.id, data: { from_state: run.state } });
  return { id: run.id, cancelling: true };
}

function rewindError(e: unknown): never {
  if (e instanceof RunRewindError) throw new ConflictError(e.message);
  throw e;
}

export async function retryRun(db: Db, ex: RunExecutor, actor: Actor | null, runId: string) {
  const who = requirePermission(actor, "runs:operate");
  const run = await visibleRun(db, who, runId);
  if (run.state !== "failed") throw new ConflictError(`Run is ${run.state}; only a failed run can be retried`);
  const ok = await ex.retry(run.id).catch(rewindError);
  if (!ok) throw new ConflictError("Run was retried by someone else");
  await appendAudit(db, { actor: who, action: "run.retry", targetType: "run", targetId: run.id, data: { error: run.error } });
  return { id: run.id, retrying: true };
}

export async function forkRun(db: Db, ex: RunExecutor, actor: Actor | null, runId: string, body: unknown) {
  const who = requirePermission(actor, "runs:operate");
  const run = await visibleRun(db, who, runId);
  const { seq } = parseOr400(forkSchema, body);
  if (!(await checkpointBySeq(db, run.threadId, run.id, seq))) throw new ValidationError("seq", `Run has no checkpoint ${seq}`);
  const id = randomUUID();
  await createRunRow(db, { id, agentName: run.agentName, input: JSON.parse(run.input), submittedById: who.id, submittedByEmail: who.email, forkedFromRunId: run.id, forkedFromSeq: seq });
  try {
    await ex.fork(run.id, seq, id, who.email);
  } catch (e) {
    await setRunState(db, id, { state: "failed", error: e instanceof Error ? e.message : String(e), finishedAt: new Date() });
    rewindError(e);
  }
  await appendAudit(db, { actor: who, action: "run.fork", targetType: "run", targetId: id, data: { from_run: run.id, from_seq: seq } });
  return { id, forkedFrom: { runId: run.id, seq } };
}

// ---- Timeline ----

export async function timelinePage(db: Db, actor: Actor | null, runId: string, query: unknown) {
  const run = await visibleRun(db, actor, runId);
  const q = parseOr400(timelineQuerySchema, query);
  const page = await checkpointTimeline(db, run.threadId, run.id, q);
  // The gap of the first row on a later page is to the last row of the page before it.
  let prevTimestampMs: number | null = null;
  if (q.cursor) {
    prevTimestampMs = await checkpointTimestamp(db, run.threadId, q.cursor);
  }
  return { run: { id: run.id, agentName: run.agentName, state: run.state, prunedAt: run.prunedAt, prunedCheckpoints: run.prunedCheckpoints }, ...page, prevTimestampMs };
}

export type SnapshotSummary = {
  seq: number;
  phase: string;
  step: number;
  timestampMs: number;
  state: string | null;
  messageCount: number | null;
  llmCalls: number | null;
  toolCalls: number | null;
  totalTokens: number | null;
  costUsd: number | null;
  pending: { text: string; toolCalls: string[] } | null;
  snapshotFromSeq: number | null;
};

async function summaryAt(db: Db, run: RunRow, cp: CheckpointRecord): Promise<SnapshotSummary> {
  const key = keys.checkpoint(run.id, cp.step, cp.seq, cp.phase);
  const withSnap = cp.payload.runtime_snapshot !== undefined ? cp : await snapshotCheckpointAtOrBefore(db, run.threadId, run.id, key);
  const parsed = withSnap ? storedSnapshotSchema.safeParse(withSnap.payload.runtime_snapshot) : null;
  const s = parsed?.success ? parsed.data : null;
  const pending = s?.pending_llm_response as { text?: string; tool_calls?: { name: string }[] } | null | undefined;
  // A terminal record carries the run's final counters itself; the last snapshot predates them.
  const t = cp.phase === "run_terminal" ? (cp.payload.terminal_result as { state?: string; usage?: { totalTokens?: number }; totalCostUsd?: number; stateSnapshot?: { llmCalls?: number; toolCalls?: number } } | undefined) : undefined;
  const ownState = typeof cp.payload.state === "string" ? cp.payload.state : null;
  return {
    seq: cp.seq,
    phase: cp.phase,
    step: cp.step,
    timestampMs: cp.timestamp_ms,
    state: t?.state ?? (cp === withSnap ? s?.state : ownState) ?? s?.state ?? null,
    messageCount: s?.messages.count ?? null,
    llmCalls: t?.stateSnapshot?.llmCalls ?? s?.llm_calls ?? null,
    toolCalls: t?.stateSnapshot?.toolCalls ?? s?.tool_calls ?? null,
    totalTokens: t?.usage?.totalTokens ?? s?.usage.total_tokens ?? null,
    costUsd: t?.totalCostUsd ?? s?.total_cost_usd ?? null,
    pending: t ? null : pending ? { text: String(pending.text ?? ""), toolCalls: (pending.tool_calls ?? []).map((x) => x.name) } : null,
    snapshotFromSeq: withSnap?.seq ?? null,
  };
}

export async function diffCheckpoints(db: Db, ex: RunExecutor, actor: Actor | null, runId: string, query: unknown) {
  const run = await visibleRun(db, actor, runId);
  const { a, b } = parseOr400(z.strictObject({ a: intParam(0, 1e9), b: intParam(0, 1e9) }), query);
  const [ca, cb] = await Promise.all([checkpointBySeq(db, run.threadId, run.id, Math.min(a, b)), checkpointBySeq(db, run.threadId, run.id, Math.max(a, b))]);
  if (!ca) throw new ValidationError("a", `No checkpoint ${Math.min(a, b)}`);
  if (!cb) throw new ValidationError("b", `No checkpoint ${Math.max(a, b)}`);
  const [sa, sb] = await Promise.all([summaryAt(db, run, ca), summaryAt(db, run, cb)]);
  let added: unknown[] = [];
  if (sa.messageCount !== null && sb.messageCount !== null && sb.messageCount > sa.messageCount) {
    const entries = await ex.rt.store.listState(run.threadId, keys.messagePrefix(run.id));
    added = entries.slice(sa.messageCount, sb.messageCount).map((e) => e.value);
  }
  return { from: sa, to: sb, messagesAdded: added, payloadKeys: { from: Object.keys(ca.payload), to: Object.keys(cb.payload) } };
}
