// What the console shows of an external run and what its runtime is told: its decisions in the order they
// were taken (a cursor over them, so a runtime that restarted reads on from where it was), its
// conversation rebuilt from what the runtime reported (messages, tool calls and their results), and its
// timeline (reports, interrupts, decisions and claims) in the rows the console's own runs use.
import "server-only";
import type { z } from "zod";
import type { ConversationView, DiffDto, SnapshotSummary, checkpointDto } from "../dto.ts";
import { type RuntimeDecisionDto, type RuntimeEventInput, runtimeEventSchema } from "../dto-protocol.ts";
import type { RunRow } from "./access.ts";
import { type ApprovalRecord, type Message, RUN, type RunState, type ToolExecution, argsHash, isTerminal } from "../runner/index.ts";
import type { ClaimRow, RuntimeEventRow } from "../db/runtime.ts";
import { ValidationError } from "../auth/errors.ts";

// ---- Decisions ----

type Position = { ms: number; id: string };

const encode = (p: Position) => Buffer.from(JSON.stringify([p.ms, p.id])).toString("base64url");

/** The position a cursor names: 400 when it is not one this module wrote. */
export function decodeDecisionCursor(cursor: string): Position {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === "string") return { ms: v[0], id: v[1] };
  } catch {}
  throw new ValidationError("cursor", "Not a cursor this API gave");
}

const positionOf = (a: ApprovalRecord): Position => ({ ms: a.decided_at_ms ?? 0, id: a.id });
const after = (a: Position, b: Position) => a.ms > b.ms || (a.ms === b.ms && a.id > b.id);

/** A decided interrupt as its runtime applies it. */
export function toRuntimeDecision(a: ApprovalRecord, claim: ClaimRow | null): RuntimeDecisionDto {
  const last = a.decisions.at(-1) ?? null;
  let decision: RuntimeDecisionDto["decision"];
  if (a.status === "approved") decision = a.approved_args && argsHash(a.approved_args) !== argsHash(a.args) ? "edit" : "approve";
  else if (a.status === "rejected") decision = "reject";
  else if (a.status === "responded") decision = "respond";
  else decision = "expire";
  return {
    approvalId: a.id,
    interruptId: a.external?.interrupt_id ?? a.tool_call_id,
    batchId: a.external?.batch_id ?? null,
    kind: a.kind,
    decision,
    args: a.status === "approved" ? (a.approved_args ?? a.args) : null,
    message: decision === "approve" || decision === "edit" ? null : (last?.reason ?? null),
    answer: a.status === "responded" ? (last?.answer ?? null) : null,
    decidedBy: a.decisions.map((d) => d.by),
    decidedAt: new Date(a.decided_at_ms ?? 0).toISOString(),
    claimedAt: claim ? claim.claimedAt.toISOString() : null,
    claimant: claim ? claim.claimant : null,
    leaseUntil: claim?.leaseUntil ? claim.leaseUntil.toISOString() : null,
    cursor: encode(positionOf(a)),
  };
}

/** The run's decisions after the cursor, in the order they were taken, at most `take`. */
export function decisionsAfter(
  approvals: ApprovalRecord[],
  claims: Map<string, ClaimRow>,
  cursor: string | null,
  take = 100,
): { decisions: RuntimeDecisionDto[]; pending: number; nextCursor: string | null } {
  const from = cursor ? decodeDecisionCursor(cursor) : null;
  const decided = approvals
    .filter((a) => a.status !== "pending" && a.decided_at_ms !== null)
    .filter((a) => !from || after(positionOf(a), from))
    .sort((a, b) => (a.decided_at_ms ?? 0) - (b.decided_at_ms ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, take)
    .map((a) => toRuntimeDecision(a, claims.get(a.id) ?? null));
  return {
    decisions: decided,
    pending: approvals.filter((a) => a.status === "pending").length,
    nextCursor: decided.at(-1)?.cursor ?? cursor,
  };
}

// ---- The conversation ----

const text = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v ?? null));

/** A reported event as stored (the report's own schema, parsed again at this boundary); null when unreadable. */
export function storedRuntimeEvent(row: RuntimeEventRow): RuntimeEventInput | null {
  try {
    const e = runtimeEventSchema.safeParse(JSON.parse(row.data));
    return e.success ? e.data : null;
  } catch {
    return null;
  }
}

/** A reported message or tool result as the runner's message (tool output is untrusted: a runtime sent it). */
function messageOf(e: RuntimeEventInput): Message | null {
  if (e.type === "message")
    return e.role === "assistant"
      ? { role: "assistant", content: e.content, tool_calls: (e.toolCalls ?? []).map((c) => ({ ...c, args: c.args ?? {} })) }
      : { role: e.role, content: e.content };
  if (e.type === "tool_result")
    return { role: "tool", tool_call_id: e.callId, name: e.name, content: text(e.output), success: e.success !== false, untrusted: true };
  return null;
}

type Parked = Pick<ApprovalRecord, "tool_call_id" | "tool_name" | "args" | "requested_at_ms" | "external">;

/**
 * The conversation of an external run, in the runner's own message shapes (the run page renders it as is):
 * what the runtime reported, and each step's parked calls that it did not report as an assistant's tool
 * calls, where they were asked (a runtime need report nothing for its calls to be decided on the run page).
 */
export function externalConversation(run: RunRow, events: RuntimeEventRow[], parked: Parked[]): ConversationView {
  const messages: Message[] = [];
  const toolExecutions: ToolExecution[] = [];
  const read = events.flatMap((row) => {
    const e = storedRuntimeEvent(row);
    return e ? [{ at: row.at.getTime(), e }] : [];
  });
  const reported = new Set(read.flatMap(({ e }) => (e.type === "message" ? (e.toolCalls ?? []).map((c) => c.id) : [])));
  const unreported = parked.filter((a) => !reported.has(a.tool_call_id)).sort((a, b) => a.requested_at_ms - b.requested_at_ms);
  // One assistant message per batch (the calls of one step), placed among the reports by when it was asked
  // (after a report of the same millisecond: a runtime reports a step before it parks its calls).
  const askedUntil = (ms: number) => {
    while (unreported.length && unreported[0].requested_at_ms < ms) {
      const batch = unreported[0].external?.batch_id ?? null;
      const calls = batch === null ? [unreported[0]] : unreported.filter((a) => (a.external?.batch_id ?? null) === batch);
      for (const a of calls) unreported.splice(unreported.indexOf(a), 1);
      messages.push({
        role: "assistant",
        content: "",
        tool_calls: calls.map((a) => ({ id: a.tool_call_id, name: a.tool_name, args: a.args })),
      });
    }
  };
  for (const { at, e } of read) {
    askedUntil(at);
    const m = messageOf(e);
    if (m) messages.push(m);
    if (e.type === "tool_result")
      toolExecutions.push({
        tool_name: e.name,
        tool_call_id: e.callId,
        success: e.success !== false,
        output: e.output ?? null,
        error: e.error ?? null,
        latency_ms: e.latencyMs ?? 0,
        agent_path: run.agentName,
        replayed: false,
        approved_by: [],
      });
  }
  askedUntil(Number.POSITIVE_INFINITY);
  return { runId: run.id, agent: run.agentName, state: run.state, messages, toolExecutions, children: {} };
}

// ---- The timeline ----

/** A row of an external run's timeline, in the shape of the console's checkpoint rows (one page, one API for both). */
export type TimelineEntry = z.infer<typeof checkpointDto>;

// Not a record of the runner's checkpoint format: built from what the console holds of the run.
const EXTERNAL_ENTRY = "external";

/**
 * An external run's timeline from what the console holds of it, in time order: its registration
 * (run_started), every report (a phase as the runtime named it, so the runner's own phase names draw their
 * spans; messages, tool results; a terminal state is run_terminal), each parked interrupt (paused), each
 * decision (decided) and each claim of one (resumed: the runtime took the decision and went on).
 */
export function externalTimeline(run: RunRow, events: RuntimeEventRow[], approvals: ApprovalRecord[], claims: Map<string, ClaimRow>) {
  type Row = { ms: number; phase: string; step?: number; payload: Record<string, unknown> };
  const rows: Row[] = [
    {
      ms: run.createdAt.getTime(),
      phase: "run_started",
      payload: { registered: { framework: run.framework, externalId: run.externalId, agent: run.agentName } },
    },
  ];
  for (const row of events) {
    const e = storedRuntimeEvent(row);
    if (!e) continue;
    const phase = e.type === "phase" ? e.phase : e.type === "state" ? (isTerminal(e.state) ? "run_terminal" : "state") : e.type;
    rows.push({ ms: row.at.getTime(), phase, step: e.type === "phase" ? e.step : undefined, payload: { reported: e } });
  }
  for (const a of approvals) {
    const interruptId = a.external?.interrupt_id ?? a.tool_call_id;
    const interrupt = {
      interruptId,
      batchId: a.external?.batch_id ?? null,
      kind: a.kind,
      name: a.tool_name,
      args: a.args,
      message: a.reason,
    };
    rows.push({
      ms: a.requested_at_ms,
      phase: "paused",
      payload: { interrupt: { ...interrupt, decisions: a.external?.decisions ?? [] } },
    });
    if (a.status === "pending" || a.decided_at_ms === null) continue;
    const { cursor: _cursor, claimedAt: _claimedAt, claimant: _claimant, leaseUntil: _lease, ...decision } = toRuntimeDecision(a, null);
    rows.push({ ms: a.decided_at_ms, phase: "decided", payload: { decision } });
    const claimed = claims.get(a.id);
    if (claimed) rows.push({ ms: claimed.claimedAt.getTime(), phase: "resumed", payload: { claimed: { interruptId, approvalId: a.id } } });
  }
  // An interrupt's own step counts the run's batches; the step shown is the one the runtime last reported.
  // Ties keep the order rows were made in: reports in their order, a request before its decision.
  const ordered = rows.map((r, i) => ({ r, i })).sort((x, y) => x.r.ms - y.r.ms || x.i - y.i);
  let step = 0;
  return ordered.map(({ r }, i): TimelineEntry => {
    step = r.step ?? step;
    return {
      schema_version: EXTERNAL_ENTRY,
      run_id: run.id,
      thread_id: run.threadId,
      step,
      phase: r.phase,
      timestamp_ms: r.ms,
      seq: i + 1,
      payload: r.payload,
    };
  });
}

const reportedIn = (e: TimelineEntry) => {
  const parsed = runtimeEventSchema.safeParse(e.payload.reported);
  return parsed.success ? parsed.data : null;
};

/** What the run was at an entry of its timeline: its state then, the messages and tool results reported so far. */
function summaryAt(entries: TimelineEntry[], at: TimelineEntry): SnapshotSummary {
  let state: RunState = RUN.running;
  let messageCount = 0;
  let toolCalls = 0;
  for (const e of entries.slice(0, at.seq)) {
    const r = reportedIn(e);
    if (e.phase === RUN.paused) state = RUN.paused;
    else if (e.phase === "resumed") state = RUN.running;
    else if (r?.type === "state") state = r.state;
    if (r && messageOf(r)) messageCount++;
    if (r?.type === "tool_result") toolCalls++;
  }
  return {
    seq: at.seq,
    phase: at.phase,
    step: at.step,
    timestampMs: at.timestamp_ms,
    state,
    messageCount,
    // A runtime reports no model calls, tokens or cost; nothing is pending in the console's sense.
    llmCalls: null,
    toolCalls,
    totalTokens: null,
    costUsd: null,
    pending: null,
    snapshotFromSeq: at.seq,
  };
}

/** Two entries of an external run's timeline compared, as the console compares two checkpoints. */
export function externalDiff(entries: TimelineEntry[], a: number, b: number): DiffDto {
  const [lo, hi] = [Math.min(a, b), Math.max(a, b)];
  const from = entries[lo - 1];
  const to = entries[hi - 1];
  if (!from) throw new ValidationError("a", `No checkpoint ${lo}`);
  if (!to) throw new ValidationError("b", `No checkpoint ${hi}`);
  const added = entries.slice(lo, hi).flatMap((e) => {
    const r = reportedIn(e);
    const m = r ? messageOf(r) : null;
    return m ? [m] : [];
  });
  return {
    from: summaryAt(entries, from),
    to: summaryAt(entries, to),
    messagesAdded: added,
    payloadKeys: { from: Object.keys(from.payload), to: Object.keys(to.payload) },
  };
}
