// Everything a person (or an API token) can do with runs, checked against their role, audited, and mapped
// to typed HTTP errors. Routes and server actions are thin wrappers around these functions.
import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import { type Db, transaction } from "../db/client.ts";
import { type Actor, requirePermission, routingGroupsOf } from "../auth/actor.ts";
import { can } from "../auth/roles.ts";
import { ConflictError, CorruptRecordError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from "../auth/errors.ts";
import { appendAudit } from "../db/audit.ts";
import { log } from "../log.ts";
import { intParam, parseOr400 } from "../validation.ts";
import {
  AgentCheckpointCorruptionError,
  ApprovalDecisionError,
  type CheckpointRecord,
  RunRewindError,
  argsHash,
  mayDecide,
  decideApproval,
  getApproval,
  keys,
  checkpointLatestKey,
  listStored,
  readLatestCheckpoint,
  validateEffects,
  parseApprovalId,
  rootRunOf,
  questionOf,
  storedSnapshotSchema,
  type ApprovalRecord,
  type Message,
  messageSchema,
} from "../runner/index.ts";
import type { AppContext } from "../context.ts";
import { PrismaStore } from "../db/store.ts";
import {
  checkpointBySeq,
  checkpointsBySeq,
  checkpointTimeline,
  checkpointTimestamp,
  countCheckpoints,
  countPendingApprovals,
  decodeInboxCursor,
  pendingApprovalPage,
  runSummaries,
  snapshotCheckpointAtOrBefore,
  webhookDeliveries,
} from "../db/read-models.ts";
import { createRunRow, getRunRow, listRunRows, lockRun, markRunCorrupt, runByIdempotencyKey, setRunState } from "../db/runs.ts";
import {
  decisionSchema,
  forkSchema,
  idempotencyKeySchema,
  inboxFiltersSchema,
  runFiltersSchema,
  startRunSchema,
  timelineQuerySchema,
} from "./schemas.ts";
import { cachedApprovalReader } from "./approval-rows.ts";
import { approvalsOf, argChanges, conversationOf, pendingApprovalsOf } from "./view.ts";
import {
  type ApprovalView,
  type ConversationView,
  type CorruptionDto,
  type DiffDto,
  type InboxDto,
  type RunView,
  type SnapshotSummary,
  toDeliveryDto,
  toJsonSchemaDto,
  toRunDto,
  toRunListDto,
  toTimelineRunDto,
} from "../dto.ts";

type RunRow = NonNullable<Awaited<ReturnType<typeof getRunRow>>>;

// ---- Agents ----

export const agentNames = (ctx: AppContext) => ctx.agents.all().map((a) => a.name);

export function agentCatalog(ctx: AppContext) {
  return ctx.agents
    .startable()
    .filter((a) => a.inputSchema)
    .map((a) => ({
      name: a.name,
      description: a.description ?? "",
      model: a.model,
      inputSchema: toJsonSchemaDto(a.inputSchema!),
      unavailable: ctx.agents.unavailableReason(a),
    }));
}

// ---- Visibility ----

function visible(actor: Actor, run: RunRow): boolean {
  return can(actor.role, "runs:read-all") || run.submittedById === actor.id;
}

/** The run if the actor may see it: 401 without a caller, 404 for a run that is not theirs to see. */
export async function visibleRun(db: Db, actor: Actor | null, runId: string): Promise<RunRow> {
  if (!actor) throw new UnauthorizedError();
  if (!can(actor.role, "runs:read-all") && !can(actor.role, "runs:start")) throw new ForbiddenError();
  const run = await getRunRow(db, runId);
  // Someone else's run is as invisible to a submitter as one that does not exist.
  if (!run || !visible(actor, run)) throw new NotFoundError("No such run");
  return run;
}

// ---- Start ----

// With an Idempotency-Key, a retried start (the client lost the first answer) returns the first run
// instead of starting a second; the key is scoped to the caller, and reusing it for a different request
// is a 409.
export async function startRun(ctx: AppContext, actor: Actor | null, body: unknown, opts: { idempotencyKey?: string | null } = {}) {
  const { db, executor: ex } = ctx;
  const who = requirePermission(actor, "runs:start");
  let key: string | null = null;
  if (opts.idempotencyKey != null) {
    const k = idempotencyKeySchema.safeParse(opts.idempotencyKey);
    if (!k.success) throw new ValidationError("Idempotency-Key", k.error.issues[0].message);
    key = `${who.id}:${k.data}`;
  }
  const { agent: name, input } = parseOr400(startRunSchema, body);
  const agent = ctx.agents.topLevelAgent(name);
  if (!agent?.inputSchema) throw new ValidationError("agent", `Unknown agent ${name}`);
  const unavailable = ctx.agents.unavailableReason(agent);
  if (unavailable) throw new ValidationError("agent", `${name} cannot run here: ${unavailable}`);
  const parsed = agent.inputSchema.strict().safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length
      ? issue.path.join(".")
      : issue.code === "unrecognized_keys"
        ? String((issue as { keys?: string[] }).keys?.[0])
        : "";
    throw new ValidationError(field ? `input.${field}` : "input", issue.message);
  }
  const replay = async () => {
    const prior = key ? await runByIdempotencyKey(db, key) : null;
    if (!prior) return null;
    if (prior.agentName !== name || prior.input !== JSON.stringify(parsed.data))
      throw new ConflictError("Idempotency-Key was already used for a different request");
    return { id: prior.id, replayed: true };
  };
  const earlier = await replay();
  if (earlier) return earlier;
  const id = randomUUID();
  try {
    await transaction(db, async (tx) => {
      await createRunRow(tx, {
        id,
        agentName: name,
        input: parsed.data,
        submittedById: who.id,
        submittedByEmail: who.email,
        idempotencyKey: key,
      });
      await appendAudit(tx, {
        actor: who,
        action: "run.start",
        targetType: "run",
        targetId: id,
        data: { agent: name, input: parsed.data },
      });
    });
  } catch (e) {
    // Two retries of one request raced: the other one created the run.
    const raced = (e as { code?: string }).code === "P2002" ? await replay() : null;
    if (raced) return raced;
    throw e;
  }
  await ex.start(id);
  return { id, replayed: false };
}

// ---- Lists ----

export async function listRuns(db: Db, actor: Actor | null, query: unknown) {
  if (!actor) throw new UnauthorizedError();
  const all = can(actor.role, "runs:read-all");
  if (!all && !can(actor.role, "runs:start")) throw new ForbiddenError();
  const f = parseOr400(runFiltersSchema, query);
  return toRunListDto(await listRunRows(db, { ...f, onlySubmittedById: all ? undefined : actor.id }));
}

const summarize = (args: Record<string, unknown>) =>
  Object.entries(args)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" · ")
    .slice(0, 300);

function summaryOf(a: ApprovalRecord): string {
  if (a.kind === "question") return questionOf(a.args);
  if (a.kind === "llm") {
    const f = a.args;
    return `Model call of step ${a.step} with ${String(f.model)}: ${String(f.llm_calls)} calls, ${String(f.total_tokens)} tokens, $${Number(f.total_cost_usd).toFixed(4)} so far`;
  }
  return summarize(a.approved_args ?? a.args);
}

export async function listInbox(db: Db, actor: Actor | null, query: unknown): Promise<InboxDto> {
  return (await inboxPage(db, actor, query)).inbox!;
}

// The inbox is what every reviewer's browser polls. Its ETag is a hash of the stored pending records,
// the reviewer and the filters: an unchanged inbox costs one indexed read and a 304, and a changed one is
// parsed and built once per reviewer (the last few are kept), not on every poll.
const builtInboxes = new Map<string, Omit<InboxDto, "asOfMs">>();
/** Approvals per inbox page; the rest are on the pages its nextCursor leads to. */
export const INBOX_PAGE = 200;

export async function inboxPage(
  db: Db,
  actor: Actor | null,
  query: unknown,
  ifNoneMatch: string | null = null,
): Promise<{ etag: string; inbox: InboxDto | null }> {
  const who = requirePermission(actor, "approvals:decide");
  const f = parseOr400(inboxFiltersSchema, query);
  const after = f.cursor === undefined ? null : decodeInboxCursor(f.cursor);
  if (f.cursor !== undefined && !after) throw new ValidationError("cursor", "Not a cursor of this inbox: use the nextCursor of a page");
  const page = await pendingApprovalPage(db, { after, take: INBOX_PAGE, agent: f.agent, tool: f.tool, read: cachedApprovalReader });
  // Routing decides what this reviewer may decide: their groups are part of what the answer depends on.
  const groups = routingGroupsOf(who);
  const h = createHash("sha256").update(`${who.email}\n${JSON.stringify(groups)}\n${JSON.stringify(f)}\n`);
  for (const r of page.rows) h.update(r.key).update("\0").update(r.value).update("\0");
  // Whether a next page exists is part of the answer too: the same 200 rows with one more behind them
  // must not be answered with the copy built when nothing was behind them.
  h.update(page.nextCursor ?? "-");
  const etag = `"${h.digest("base64url").slice(0, 27)}"`;
  if (ifNoneMatch?.split(/\s*,\s*/).includes(etag)) return { etag, inbox: null };
  let built = builtInboxes.get(etag);
  if (!built) {
    built = await buildInbox(db, who, page);
    builtInboxes.set(etag, built);
    if (builtInboxes.size > 16) builtInboxes.delete(builtInboxes.keys().next().value!);
  }
  return { etag, inbox: { ...built, asOfMs: Date.now() } };
}

async function buildInbox(
  db: Db,
  who: Actor,
  { approvals, corrupt, nextCursor }: Awaited<ReturnType<typeof pendingApprovalPage>>,
): Promise<Omit<InboxDto, "asOfMs">> {
  const groups = routingGroupsOf(who);
  const corruptRoots = corrupt.flatMap((c) => (c.runId ? [rootRunOf(c.runId)] : []));
  const roots = await runSummaries(db, [...new Set([...approvals.map((a) => a.root_run_id), ...corruptRoots])]);
  const byId = new Map(roots.map((r) => [r.id, r]));
  // A corrupt approval is listed (and its run marked, once: the inbox is polled) but never offered for a decision.
  for (const c of corrupt)
    if (c.runId && byId.get(rootRunOf(c.runId))?.corruptKey === null) await markRunCorrupt(db, rootRunOf(c.runId), c.key);
  return {
    approvals: approvals.map((a) => ({
      id: a.id,
      runId: a.root_run_id,
      subRunId: a.run_id === a.root_run_id ? null : a.run_id,
      agent: a.agent_name,
      rootAgent: byId.get(a.root_run_id)?.agentName ?? a.agent_name,
      tool: a.tool_name,
      kind: a.kind,
      summary: summaryOf(a),
      reason: a.reason,
      requestedBy: a.requested_by ?? byId.get(a.root_run_id)?.submittedByEmail ?? null,
      requestedAtMs: a.requested_at_ms,
      deadlineMs: a.deadline_ms,
      quorum: a.quorum,
      groups: a.groups,
      canDecide: mayDecide(a, groups),
      approvals: a.decisions.filter((d) => d.decision === "approve").length,
      decidedByMe: a.decisions.some((d) => d.by === who.email),
      argsHash: argsHash(a.approved_args ?? a.args),
      version: a.version,
    })),
    corrupt: corrupt.map((c) => ({
      key: c.key,
      runId: c.runId ? rootRunOf(c.runId) : null,
      error: "AgentCheckpointCorruptionError" as const,
      message: c.message,
    })),
    nextCursor,
  };
}

export async function pendingCount(db: Db, actor: Actor | null) {
  requirePermission(actor, "approvals:decide");
  return { pending: await countPendingApprovals(db) };
}

// ---- The run page ----

const corruptionOf = (e: unknown): CorruptionDto | null =>
  e instanceof AgentCheckpointCorruptionError ? { error: "AgentCheckpointCorruptionError", message: e.message, key: e.key ?? null } : null;

// Reads everything of a run that a decision or an operator action would rely on, through the runner's
// validating readers: the latest checkpoint (a run that has begun must have one), the snapshot and logs
// it points to, and every approval of the run and its subagents. An unreadable record marks the run.
async function readRun(ctx: AppContext, run: RunRow): Promise<{ conversation: ConversationView | null; approvals: ApprovalView[] }> {
  if (run.state === "pending") return { conversation: null, approvals: [] };
  const latest = await readLatestCheckpoint(ctx.store, run.threadId, run.id);
  // A running run may have none stored yet at any step: its row's progress comes from the runner's events,
  // ahead of the write-behind queue (and a worker taking it over starts it afresh without one).
  if (!latest && run.state === "running") return { conversation: null, approvals: [] };
  if (!latest) throw new AgentCheckpointCorruptionError(`No checkpoint for run ${run.id}`, checkpointLatestKey(run.id));
  const conversation = await conversationOf(ctx.store, run.threadId, run.id);
  const approvals = await approvalsOf(
    ctx.store,
    run.threadId,
    run.id,
    (name) => ctx.agents.toolsOf(name),
    (agent, tool) => ctx.agents.mcpOriginOf(agent, tool),
  );
  return { conversation, approvals };
}

export async function getRunView(ctx: AppContext, actor: Actor | null, runId: string): Promise<RunView> {
  const { db } = ctx;
  let run = await visibleRun(db, actor, runId);
  let read: Awaited<ReturnType<typeof readRun>> = { conversation: null, approvals: [] };
  let corruption: CorruptionDto | null = null;
  try {
    read = await readRun(ctx, run);
  } catch (e) {
    corruption = corruptionOf(e);
    if (!corruption) throw e;
    await markRunCorrupt(db, run.id, corruption.key);
    run = (await getRunRow(db, run.id)) ?? run;
  }
  if (!corruption && run.corruptKey)
    corruption = {
      error: "AgentCheckpointCorruptionError",
      message: `A record of this run could not be read (key ${run.corruptKey})`,
      key: run.corruptKey,
    };
  const agent = ctx.agents.find(run.agentName);
  return {
    run: toRunDto(run),
    corruption,
    conversation: read.conversation,
    approvals: read.approvals.map((a) => ({ ...a, canDecide: mayDecide(a, routingGroupsOf(actor!)) })),
    checkpointCount: await countCheckpoints(db, run.threadId, run.id),
    canResume: !corruption && run.state === "paused" && read.approvals.every((a) => a.status !== "pending"),
    permissions: { decide: can(actor!.role, "approvals:decide"), operate: can(actor!.role, "runs:operate") },
    selfApprovalForbidden: !agent?.allowSelfApproval && run.submittedById === actor!.id,
    deliveries: (await webhookDeliveries(db, run.id)).map(toDeliveryDto),
    asOfMs: Date.now(),
  };
}

// Decide, resume, cancel, retry and fork refuse a run with an unreadable record: 409 naming the key,
// and the run is marked so that no sweep or worker claims it again.
async function assertReadable(ctx: AppContext, run: RunRow): Promise<void> {
  const { db } = ctx;
  if (run.corruptKey) throw new CorruptRecordError(`A record of run ${run.id} could not be read`, run.corruptKey);
  await onRun(db, run.id, async () => {
    await readRun(ctx, run);
    // Resume replays effects: one that cannot be read would stop it later; refuse now instead.
    await validateEffects(ctx.store, run.threadId, run.id);
  });
}

// Any corruption found while acting on a run marks it and answers 409.
async function onRun<T>(db: Db, runId: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof AgentCheckpointCorruptionError)) throw e;
    await markRunCorrupt(db, runId, e.key ?? null);
    throw new CorruptRecordError(e.message, e.key ?? null);
  }
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

export async function decide(ctx: AppContext, actor: Actor | null, approvalId: string, body: unknown) {
  const { db, executor: ex } = ctx;
  const who = requirePermission(actor, "approvals:decide");
  const input = parseOr400(decisionSchema, body);
  const ref = parseApprovalId(approvalId);
  if (!ref) throw new NotFoundError("No such approval");
  const root = await getRunRow(db, ref.rootRunId);
  if (!root) throw new NotFoundError("No such approval");
  await assertReadable(ctx, root);
  const before = await onRun(db, root.id, () => getApproval(ctx.store, root.threadId, approvalId));
  if (!before) throw new NotFoundError("No such approval");
  const rootAgent = ctx.agents.find(root.agentName);
  // An MCP tool's schema (edited arguments are validated by it) comes from its server.
  const deciding = ctx.agents.find(before.agent_name);
  if (deciding) await ctx.agents.prepare(deciding).catch((e) => log.warn("MCP tools unavailable for a decision", { error: String(e) }));
  const tool = ctx.agents.toolsOf(before.agent_name).find((t) => t.name === before.tool_name);
  const edited = input.decision === "approve" && !!input.args;

  // The decision, its audit entry and (for agents that resume by themselves) the reservation of the resume
  // and its job commit in one transaction, on SQLite as on PostgreSQL: a crash loses all or nothing. Its
  // first statement takes the run's row lock, so decisions on one run serialize.
  const result = await onRun(db, root.id, () =>
    ex.transaction(async (tx, submit) => {
      await lockRun(tx, root.id);
      const store = new PrismaStore(tx);
      let after: ApprovalRecord;
      try {
        after = await decideApproval(store, root.threadId, approvalId, tool, {
          by: who.email,
          decision: input.decision,
          reason: input.reason,
          args: input.args,
          answer: input.answer,
          expectedArgsHash: input.argsHash,
          forbiddenDeciders: rootAgent?.allowSelfApproval || !root.submittedByEmail ? [] : [root.submittedByEmail],
          deciderGroups: routingGroupsOf(who),
        });
      } catch (e) {
        approvalError(e, await getApproval(store, root.threadId, approvalId));
      }
      await appendAudit(tx, {
        actor: who,
        action: edited ? "approval.edit_approve" : `approval.${input.decision}`,
        targetType: "run",
        targetId: root.id,
        data: {
          approval_id: approvalId,
          tool: before.tool_name,
          decision: input.decision,
          reason: input.reason ?? null,
          kind: before.kind,
          ...(input.answer ? { answer: after.decisions.at(-1)?.answer ?? null } : {}),
          before: before.approved_args ?? before.args,
          after: after.approved_args ?? after.args,
          changes: argChanges(before.args, after.approved_args),
          status: after.status,
        },
      });
      let reserved = false;
      if (rootAgent?.autoResume && root.state === "paused") {
        const pending = await pendingApprovalsOf(store, root.threadId, root.id);
        reserved =
          !pending.length &&
          (await submit(root.id, "paused", {
            actor: null,
            action: "run.auto_resume",
            targetType: "run",
            targetId: root.id,
            data: { after: approvalId },
          }));
      }
      return { approval: after, resumed: reserved };
    }),
  );
  // Committed: every reviewer's inbox and every tab on this run refetch.
  ctx.live.publish({ topic: "inbox" });
  ctx.live.publish({ topic: "run", runId: root.id });
  return result;
}

// ---- Operator actions ----

export async function resumeRun(ctx: AppContext, actor: Actor | null, runId: string) {
  const { db, executor: ex } = ctx;
  if (!actor) throw new UnauthorizedError();
  if (!can(actor.role, "approvals:decide") && !can(actor.role, "runs:operate")) throw new ForbiddenError();
  const run = await visibleRun(db, actor, runId);
  await assertReadable(ctx, run);
  if (run.state !== "paused") throw new ConflictError(`Run is ${run.state}, not paused`);
  const pending = await onRun(db, run.id, () => pendingApprovalsOf(ctx.store, run.threadId, run.id));
  if (pending.length) throw new ConflictError(`${pending.length} approval(s) still pending`);
  if (!(await ex.resumeWithAudit(run.id, actor))) throw new ConflictError("Run was resumed by someone else");
  return { id: run.id, resumed: true };
}

export async function cancelRun(ctx: AppContext, actor: Actor | null, runId: string) {
  const { db, executor: ex } = ctx;
  const who = requirePermission(actor, "runs:operate");
  const run = await visibleRun(db, who, runId);
  await assertReadable(ctx, run);
  if (run.state !== "running" && run.state !== "paused")
    throw new ConflictError(`Run is ${run.state}; only running or paused runs can be cancelled`);
  const audit = { actor: who, action: "run.cancel", targetType: "run", targetId: run.id, data: { from_state: run.state } };
  if (!(await ex.cancel(run.id, audit))) throw new ConflictError("Run is no longer running or paused");
  return { id: run.id, cancelling: true };
}

function rewindError(e: unknown): never {
  if (e instanceof RunRewindError) throw new ConflictError(e.message);
  throw e;
}

export async function retryRun(ctx: AppContext, actor: Actor | null, runId: string) {
  const { db, executor: ex } = ctx;
  const who = requirePermission(actor, "runs:operate");
  const run = await visibleRun(db, who, runId);
  await assertReadable(ctx, run);
  if (run.state !== "failed") throw new ConflictError(`Run is ${run.state}; only a failed run can be retried`);
  const audit = { actor: who, action: "run.retry", targetType: "run", targetId: run.id, data: { error: run.error } };
  const ok = await onRun(db, run.id, () => ex.retry(run.id, audit).catch(rewindError));
  if (!ok) throw new ConflictError("Run was retried by someone else");
  return { id: run.id, retrying: true };
}

export async function forkRun(ctx: AppContext, actor: Actor | null, runId: string, body: unknown) {
  const { db, executor: ex } = ctx;
  const who = requirePermission(actor, "runs:operate");
  const run = await visibleRun(db, who, runId);
  const { seq } = parseOr400(forkSchema, body);
  await assertReadable(ctx, run);
  if (!(await checkpointBySeq(db, run.threadId, run.id, seq))) throw new ValidationError("seq", `Run has no checkpoint ${seq}`);
  const id = randomUUID();
  await createRunRow(db, {
    id,
    agentName: run.agentName,
    input: JSON.parse(run.input),
    submittedById: who.id,
    submittedByEmail: who.email,
    forkedFromRunId: run.id,
    forkedFromSeq: seq,
  });
  try {
    await ex.fork(run.id, seq, id, who.email);
  } catch (e) {
    await setRunState(db, id, { state: "failed", error: e instanceof Error ? e.message : String(e), finishedAt: new Date() });
    if (e instanceof AgentCheckpointCorruptionError) {
      await markRunCorrupt(db, run.id, e.key ?? null);
      throw new CorruptRecordError(e.message, e.key ?? null);
    }
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
  if (page.corrupt.length && !run.corruptKey) await markRunCorrupt(db, run.id, page.corrupt[0].key);
  return { run: toTimelineRunDto(run), ...page, prevTimestampMs };
}

async function summaryAt(db: Db, run: RunRow, cp: CheckpointRecord): Promise<SnapshotSummary> {
  const key = keys.checkpoint(run.id, cp.step, cp.seq, cp.phase);
  const withSnap = cp.payload.runtime_snapshot !== undefined ? cp : await snapshotCheckpointAtOrBefore(db, run.threadId, run.id, key);
  const parsed = withSnap ? storedSnapshotSchema.safeParse(withSnap.payload.runtime_snapshot) : null;
  const s = parsed?.success ? parsed.data : null;
  const pending = s?.pending_llm_response as { text?: string; tool_calls?: { name: string }[] } | null | undefined;
  // A terminal record carries the run's final counters itself; the last snapshot predates them.
  const t =
    cp.phase === "run_terminal"
      ? (cp.payload.terminal_result as
          | {
              state?: string;
              usage?: { totalTokens?: number };
              totalCostUsd?: number;
              stateSnapshot?: { llmCalls?: number; toolCalls?: number };
            }
          | undefined)
      : undefined;
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

export async function diffCheckpoints(ctx: AppContext, actor: Actor | null, runId: string, query: unknown): Promise<DiffDto> {
  const { db } = ctx;
  const run = await visibleRun(db, actor, runId);
  const { a, b } = parseOr400(z.strictObject({ a: intParam(0, 1e9), b: intParam(0, 1e9) }), query);
  return onRun(db, run.id, () => diffOf(ctx, run, a, b));
}

async function diffOf(ctx: AppContext, run: RunRow, a: number, b: number): Promise<DiffDto> {
  const { db } = ctx;
  const found = await checkpointsBySeq(db, run.threadId, run.id, [Math.min(a, b), Math.max(a, b)]);
  const [ca, cb] = [found.get(Math.min(a, b)), found.get(Math.max(a, b))];
  if (!ca) throw new ValidationError("a", `No checkpoint ${Math.min(a, b)}`);
  if (!cb) throw new ValidationError("b", `No checkpoint ${Math.max(a, b)}`);
  const [sa, sb] = await Promise.all([summaryAt(db, run, ca), summaryAt(db, run, cb)]);
  let added: Message[] = [];
  if (sa.messageCount !== null && sb.messageCount !== null && sb.messageCount > sa.messageCount) {
    const entries = await listStored(ctx.store, run.threadId, keys.messagePrefix(run.id), "message");
    added = entries.slice(sa.messageCount, sb.messageCount).map((e) => {
      const m = messageSchema.safeParse(e.value);
      if (!m.success) throw new AgentCheckpointCorruptionError(`Message log entry is malformed (key ${e.key})`, e.key);
      return m.data;
    });
  }
  return { from: sa, to: sb, messagesAdded: added, payloadKeys: { from: Object.keys(ca.payload), to: Object.keys(cb.payload) } };
}
