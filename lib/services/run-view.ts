// The runs list and the run page. The page is rebuilt from the runner's records through its validating
// readers: the conversation from the latest runtime snapshot (with each subagent's own conversation under
// the tool call that delegated to it) and the approvals of the run and its subagents. Everything here is
// data; the page renders it as text. A record that cannot be read marks its run (`onRun`): decide, resume,
// cancel, retry and fork then refuse it with a 409 naming the record's key.
import "server-only";
import type { Actor } from "../auth/actor.ts";
import { routingGroupsOf } from "../auth/actor.ts";
import { CorruptRecordError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import type { Db } from "../db/client.ts";
import {
  type ApprovalView,
  type ConversationView,
  type CorruptionDto,
  type HandoffsDto,
  type RunView,
  argChanges,
  jsonSchemaDto,
  toDeliveryDto,
  toJsonSchemaDto,
  toRunDto,
  toRunListDto,
} from "../dto.ts";
import {
  type Agent,
  AgentCheckpointCorruptionError,
  type MemoryStore,
  childRunId,
  delegateTaskSchema,
  hasSnapshot,
  isDelegateTool,
  isTerminal,
  loadSnapshot,
  noCheckpointError,
  type ApprovalRecord,
  listApprovalTree,
  mayDecide,
  readLatestCheckpoint,
  reviewedArgsHash,
  validateEffects,
  RUN,
} from "../runner/index.ts";
import { lastActorOf } from "../db/audit.ts";
import { countCheckpoints, webhookDeliveries } from "../db/read-models.ts";
import { pendingApprovals, readPending } from "../db/approvals.ts";
import { getRunRow, listRunRows, markRunCorrupt } from "../db/runs.ts";
import { claimsOf, runtimeEvents } from "../db/runtime.ts";
import { externalConversation, externalTimeline, storedRuntimeEvent } from "./runtime-view.ts";
import { parseOr400 } from "../validation.ts";
import { type RunRow, SEES_RUNS, allows, authorize, visibleRun } from "./access.ts";
import { handoffsOf, routingAllows, separation } from "./handoff-access.ts";
import { confirmOf } from "./confirm.ts";
import { summarizeValues } from "../display.ts";
import { runFiltersSchema } from "./schemas.ts";

// ---- The runs list ----

/** A page of runs: every run for those who see all, a submitter's own otherwise. */
export async function listRuns(
  ctx: Pick<AppContext, "db"> & Partial<Pick<AppContext, "agents">>,
  actor: Actor | null,
  { query }: { query: unknown },
) {
  const who = authorize(actor, SEES_RUNS);
  const all = allows(who, "runs:read-all");
  const f = parseOr400(runFiltersSchema, query);
  return toRunListDto(await listRunRows(ctx.db, { ...f, onlySubmittedById: all ? undefined : who.id }), (r, input) =>
    aboutRun(ctx, r.agentName, input),
  );
}

/** A run's input in a line, as its start form's schema formats it (money, enum labels); null without an input object. */
function aboutRun(ctx: Partial<Pick<AppContext, "agents">>, agentName: string, input: unknown): string | null {
  if (!input || typeof input !== "object" || Array.isArray(input) || "unreadable" in input) return null;
  const schema = ctx.agents?.find(agentName)?.inputSchema;
  return summarizeValues(input as Record<string, unknown>, schema ? toJsonSchemaDto(schema) : null) || null;
}

// ---- The run page ----

export async function getRunView(ctx: AppContext, actor: Actor | null, { runId }: { runId: string }): Promise<RunView> {
  const { db } = ctx;
  const who = authorize(actor, SEES_RUNS);
  let run = await visibleRun(ctx, who, runId);
  let read: RunRecords = { conversation: null, approvals: [] };
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
  const approvals = await Promise.all(
    read.approvals.map(async (a) => ({
      ...a,
      // A pending request handed on (reassigned, or its reviewer away) is decided as its hand-offs say.
      canDecide:
        a.status === "pending"
          ? await routingAllows(db, who, a, { submitter: run.submittedByEmail, selfApproval: !!agent?.allowSelfApproval })
          : mayDecide(a, routingGroupsOf(who)),
      confirm: confirmOf(ctx.agents, a, a.argsSchema),
    })),
  );
  const handoffs = await handoffsOf(
    db,
    who,
    approvals.map((a) => ({ id: a.id, pending: a.status === "pending", routed: a.canDecide })),
    separation(ctx.agents, run),
  );
  return {
    run: toRunDto(run),
    corruption,
    conversation: read.conversation,
    approvals: approvals.map((a) => ({ ...a, handoffs: handoffs.get(a.id) as HandoffsDto })),
    ...(run.runtimeTokenId
      ? await externalCounts(db, run, read.approvals)
      : { checkpointCount: await countCheckpoints(db, run.threadId, run.id), runtimePickup: null }),
    // An external run is resumed by its own runtime (it claims the decisions), never from here.
    canResume: !corruption && !run.runtimeTokenId && run.state === RUN.paused && read.approvals.every((a) => a.status !== "pending"),
    permissions: { decide: allows(who, "approvals:decide"), operate: allows(who, "runs:operate") },
    selfApprovalForbidden: (!!run.runtimeTokenId || !agent?.allowSelfApproval) && run.submittedById === who.id,
    deliveries: (await webhookDeliveries(db, run.id)).map(toDeliveryDto),
    // Its requests were closed by the runner's run-ended decider: the page says who ended it.
    cancelledBy:
      run.state === RUN.cancelled || run.state === RUN.cancelling ? ((await lastActorOf(db, run.id, "run.cancel")) ?? null) : null,
    asOfMs: Date.now(),
  };
}

// An external run's timeline is what its runtime reported and what was decided (its length); its runtime
// resumes it by claiming the decisions: how many it has not picked up yet, and how many it claimed and then
// never reported on past the claim's lease (another claimant may take those over).
async function externalCounts(db: Db, run: RunRow, approvals: ApprovalView[]) {
  const [events, claims] = await Promise.all([runtimeEvents(db, run.id), claimsOf(db, run.id)]);
  const reported = new Set(
    events.flatMap((row) => {
      const e = storedRuntimeEvent(row);
      return e?.type === "tool_result" ? [e.callId] : [];
    }),
  );
  const now = Date.now();
  // Only a call that runs reports a result: an approved one (a rejection or an expiry has none to report).
  const overdue = (a: ApprovalView) => {
    const lease = claims.get(a.id)?.leaseUntil;
    if (a.status !== "approved") return false;
    if (!lease || lease.getTime() > now || isTerminal(run.state)) return false;
    return ![a.external?.interrupt_id, a.tool_call_id, a.external?.call_id].some((id) => id && reported.has(id));
  };
  return {
    checkpointCount: externalTimeline(run, events, approvals, claims).length,
    runtimePickup: {
      waiting: approvals.filter((a) => a.status !== "pending" && !claims.has(a.id)).length,
      overdue: approvals.filter(overdue).length,
    },
  };
}

const corruptionOf = (e: unknown): CorruptionDto | null =>
  e instanceof AgentCheckpointCorruptionError ? { error: "AgentCheckpointCorruptionError", message: e.message, key: e.key ?? null } : null;

type RunRecords = { conversation: ConversationView | null; approvals: ApprovalView[] };

// Reads everything of a run that a decision or an operator action would rely on, through the runner's
// validating readers: the latest checkpoint (a run that has begun must have one), the snapshot and logs
// it points to, and every approval of the run and its subagents.
async function readRun(ctx: Pick<AppContext, "db" | "store" | "agents">, run: RunRow): Promise<RunRecords> {
  // An external run has no checkpoints here: its conversation is what its runtime reported.
  if (run.runtimeTokenId) {
    const approvals = await approvalsOf(ctx.store, run.threadId, run.id, () => []);
    return { conversation: externalConversation(run, await runtimeEvents(ctx.db, run.id), approvals), approvals };
  }
  if (run.state === RUN.pending) return { conversation: null, approvals: [] };
  const latest = await readLatestCheckpoint(ctx.store, run.threadId, run.id);
  // A running run may have none stored yet at any step: its row's progress comes from the runner's events,
  // ahead of the write-behind queue (and a worker taking it over starts it afresh without one).
  if (!latest && run.state === RUN.running) return { conversation: null, approvals: [] };
  if (!latest) throw noCheckpointError(run.id);
  const conversation = await conversationOf(ctx.store, run.threadId, run.id);
  const approvals = await approvalsOf(
    ctx.store,
    run.threadId,
    run.id,
    (name) => ctx.agents.toolsOf(name),
    (agent, tool) => ctx.agents.mcpOriginOf(agent, tool),
    callPositions(conversation),
  );
  return { conversation, approvals };
}

/** Decide, resume, cancel, retry and fork refuse a run with an unreadable record: 409 naming the key,
 * and the run is marked so that no sweep or worker claims it again. */
export async function assertReadable(ctx: Pick<AppContext, "db" | "store" | "agents">, run: RunRow): Promise<void> {
  if (run.corruptKey) throw new CorruptRecordError(`A record of run ${run.id} could not be read`, run.corruptKey);
  await onRun(ctx.db, run.id, async () => {
    await readRun(ctx, run);
    // Resume replays effects: one that cannot be read would stop it later; refuse now instead.
    await validateEffects(ctx.store, run.threadId, run.id);
  });
}

/** Any corruption found while acting on a run marks it and answers 409. */
export async function onRun<T>(db: Db, runId: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof AgentCheckpointCorruptionError)) throw e;
    await markRunCorrupt(db, runId, e.key ?? null);
    throw new CorruptRecordError(e.message, e.key ?? null);
  }
}

// ---- Reading the runner's records ----

type McpOrigin = { server: string; tool: string };

export async function conversationOf(store: MemoryStore, threadId: string, runId: string, depth = 0): Promise<ConversationView> {
  const loaded = await loadSnapshot(store, threadId, runId);
  const children: Record<string, ConversationView> = {};
  if (depth < 4) {
    for (const m of loaded.messages.items) {
      if (m.role !== "assistant") continue;
      for (const c of m.tool_calls.filter((c) => isDelegateTool(c.name))) {
        const childId = childRunId(runId, c.id);
        if (await hasSnapshot(store, threadId, childId)) children[c.id] = await conversationOf(store, threadId, childId, depth + 1);
      }
    }
  }
  return {
    runId,
    agent: loaded.snapshot.agent_name,
    state: loaded.snapshot.state,
    messages: loaded.messages.items,
    toolExecutions: loaded.toolExecutions.items,
    children,
  };
}

const callKey = (runId: string, callId: string) => `${runId} ${callId}`;

// Where each tool call stands in the model turn that made it, for every run of a conversation tree. A
// provider may reuse an id in a later step: the latest turn that holds it wins, which is the one whose
// approvals can still be pending.
function callPositions(conv: ConversationView | null, into = new Map<string, number>()): Map<string, number> {
  if (!conv) return into;
  for (const m of conv.messages) {
    if (m.role !== "assistant") continue;
    for (const [i, c] of m.tool_calls.entries()) into.set(callKey(conv.runId, c.id), i);
  }
  for (const child of Object.values(conv.children)) callPositions(child, into);
  return into;
}

// Approvals of a run and of its subagent runs (same thread), oldest first. The approvals of one step are
// requested by tools running in parallel, so their timestamps say nothing about their order: they are
// listed as the model called them (positions from callPositions), each step where its first one was asked.
export async function approvalsOf(
  store: MemoryStore,
  threadId: string,
  runId: string,
  toolsOf: (agentName: string) => Agent["tools"],
  mcpOriginOf: (agentName: string, toolName: string) => McpOrigin | null = () => null,
  positions: Map<string, number> = new Map(),
): Promise<ApprovalView[]> {
  const parsed = await listApprovalTree(store, threadId, runId);
  const stepOf = (a: (typeof parsed)[number]) => `${a.run_id} ${a.step}`;
  const stepStart = new Map<string, number>();
  for (const a of parsed) stepStart.set(stepOf(a), Math.min(stepStart.get(stepOf(a)) ?? a.requested_at_ms, a.requested_at_ms));
  const position = (a: (typeof parsed)[number]) => positions.get(callKey(a.run_id, a.tool_call_id)) ?? Number.MAX_SAFE_INTEGER;
  return parsed
    .sort(
      (a, b) =>
        (stepStart.get(stepOf(a)) ?? 0) - (stepStart.get(stepOf(b)) ?? 0) ||
        stepOf(a).localeCompare(stepOf(b)) ||
        position(a) - position(b) ||
        a.requested_at_ms - b.requested_at_ms,
    )
    .map((a) => {
      const common = { ...a, changes: argChanges(a.args, a.approved_args), argsHash: reviewedArgsHash(a) };
      // An external runtime's interrupt carries its own schemas; the edit form is offered only when it can apply an edit.
      if (a.external) {
        const ext = a.external;
        const editable = ext.decisions.includes("edit");
        return {
          ...common,
          argsSchema: editable ? jsonSchemaDto.parse(ext.args_schema ?? { type: "object" }) : null,
          answerSchema: ext.response_schema ? jsonSchemaDto.parse(ext.response_schema) : null,
          mcp: null,
        };
      }
      const tool = toolsOf(a.agent_name).find((t) => t.name === a.tool_name);
      // A delegation's task is edited on its own schema; a model call's facts are not edited at all.
      const schema = a.kind === "subagent" ? delegateTaskSchema : a.kind === "llm" ? undefined : tool?.schema;
      return {
        ...common,
        argsSchema: schema ? toJsonSchemaDto(schema) : null,
        answerSchema: tool?.asksHuman?.answerSchema ? toJsonSchemaDto(tool.asksHuman.answerSchema) : null,
        mcp: mcpOriginOf(a.agent_name, a.tool_name),
      };
    });
}

// The approvals of a run (and its subagents) still waiting for a decision; an unreadable one is corruption.
export async function pendingApprovalsOf(db: Db, rootRunId: string): Promise<ApprovalRecord[]> {
  const { approvals, corrupt } = readPending((await pendingApprovals(db, { rootRunId, take: 1000 })).rows);
  if (corrupt.length) throw new AgentCheckpointCorruptionError(corrupt[0].message, corrupt[0].key);
  return approvals;
}
