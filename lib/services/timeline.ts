// A run's timeline (its checkpoints in write order, a page at a time) and the diff of two checkpoints:
// counters, state and pending response at each, and the messages added between them. An external run
// has no checkpoints here: its timeline is built from what its runtime reported and what was decided
// (runtime-view.ts), in the same rows.
import "server-only";
import type { Actor } from "../auth/actor.ts";
import { ValidationError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import type { Db } from "../db/client.ts";
import { type DiffDto, type SnapshotSummary, toTimelineRunDto } from "../dto.ts";
import { type CheckpointRecord, type Message, checkpointCursor, readMessages, storedSnapshotSchema } from "../runner/index.ts";
import { checkpointTimeline, checkpointTimestamp, checkpointsBySeq, snapshotCheckpointAtOrBefore } from "../db/read-models.ts";
import { markRunCorrupt } from "../db/runs.ts";
import { parseOr400 } from "../validation.ts";
import { type RunRow, visibleRun } from "./access.ts";
import { claimsOf, runtimeEvents } from "../db/runtime.ts";
import { PrismaStore } from "../db/store.ts";
import { listApprovals, RUN_STATES, type RunState } from "../runner/index.ts";
import { onRun } from "./run-view.ts";
import { externalDiff, externalTimeline } from "./runtime-view.ts";
import { diffQuerySchema, timelineQuerySchema } from "./schemas.ts";

type TimelineInput = { runId: string; query: unknown };

export async function timelinePage(ctx: Pick<AppContext, "db">, actor: Actor | null, { runId, query }: TimelineInput) {
  const { db } = ctx;
  const run = await visibleRun(ctx, actor, runId);
  const q = parseOr400(timelineQuerySchema, query);
  if (run.runtimeTokenId) return externalPage(db, run, q);
  const page = await checkpointTimeline(db, run.threadId, run.id, q);
  // The gap of the first row on a later page is to the last row of the page before it.
  let prevTimestampMs: number | null = null;
  if (q.cursor) {
    prevTimestampMs = await checkpointTimestamp(db, run.threadId, q.cursor);
  }
  if (page.corrupt.length && !run.corruptKey) await markRunCorrupt(db, run.id, page.corrupt[0].key);
  return { run: toTimelineRunDto(run), ...page, prevTimestampMs };
}

export async function diffCheckpoints(
  ctx: Pick<AppContext, "db" | "store">,
  actor: Actor | null,
  { runId, query }: TimelineInput,
): Promise<DiffDto> {
  const run = await visibleRun(ctx, actor, runId);
  const { a, b } = parseOr400(diffQuerySchema, query);
  if (run.runtimeTokenId) return externalDiff(await externalEntries(ctx.db, run), a, b);
  return onRun(ctx.db, run.id, () => diffOf(ctx, run, a, b));
}

// ---- An external run: no checkpoints here, its timeline is what its runtime reported and what was decided ----

async function externalEntries(db: Db, run: RunRow) {
  // Reads only: a store on the same database (the callers' contexts need not carry one).
  const approvals = await onRun(db, run.id, () => listApprovals(new PrismaStore(db), run.threadId, run.id));
  return externalTimeline(run, await runtimeEvents(db, run.id), approvals, await claimsOf(db, run.id));
}

// A page of it, after the seq the cursor names, in the answer the console's own runs get.
async function externalPage(db: Db, run: RunRow, q: { cursor?: string; take?: number }) {
  if (q.cursor !== undefined && !/^\d+$/.test(q.cursor)) throw new ValidationError("cursor", "Not a cursor this API gave");
  const after = Number(q.cursor ?? 0);
  const take = q.take ?? 100;
  const entries = await externalEntries(db, run);
  const page = entries.slice(after, after + take);
  return {
    run: toTimelineRunDto(run),
    checkpoints: page,
    corrupt: [],
    nextCursor: entries.length > after + take ? String(page.at(-1)?.seq) : null,
    prevTimestampMs: after > 0 ? (entries[after - 1]?.timestamp_ms ?? null) : null,
  };
}

async function diffOf(ctx: Pick<AppContext, "db" | "store">, run: RunRow, a: number, b: number): Promise<DiffDto> {
  const { db } = ctx;
  const found = await checkpointsBySeq(db, run.threadId, run.id, [Math.min(a, b), Math.max(a, b)]);
  const [ca, cb] = [found.get(Math.min(a, b)), found.get(Math.max(a, b))];
  if (!ca) throw new ValidationError("a", `No checkpoint ${Math.min(a, b)}`);
  if (!cb) throw new ValidationError("b", `No checkpoint ${Math.max(a, b)}`);
  const [sa, sb] = await Promise.all([summaryAt(db, run, ca), summaryAt(db, run, cb)]);
  let added: Message[] = [];
  if (sa.messageCount !== null && sb.messageCount !== null && sb.messageCount > sa.messageCount) {
    added = await readMessages(ctx.store, run.threadId, run.id, sa.messageCount, sb.messageCount);
  }
  return { from: sa, to: sb, messagesAdded: added, payloadKeys: { from: Object.keys(ca.payload), to: Object.keys(cb.payload) } };
}

// A state as a record holds it (a record of an older version may hold anything): one of the runner's, or null.
const runStateOf = (v: unknown): RunState | null => ((RUN_STATES as readonly unknown[]).includes(v) ? (v as RunState) : null);

async function summaryAt(db: Db, run: RunRow, cp: CheckpointRecord): Promise<SnapshotSummary> {
  const key = checkpointCursor(run.id, cp);
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
  const ownState = runStateOf(cp.payload.state);
  return {
    seq: cp.seq,
    phase: cp.phase,
    step: cp.step,
    timestampMs: cp.timestamp_ms,
    state: runStateOf(t?.state) ?? (cp === withSnap ? runStateOf(s?.state) : ownState) ?? runStateOf(s?.state),
    messageCount: s?.messages.count ?? null,
    llmCalls: t?.stateSnapshot?.llmCalls ?? s?.llm_calls ?? null,
    toolCalls: t?.stateSnapshot?.toolCalls ?? s?.tool_calls ?? null,
    totalTokens: t?.usage?.totalTokens ?? s?.usage.total_tokens ?? null,
    costUsd: t?.totalCostUsd ?? s?.total_cost_usd ?? null,
    pending: t ? null : pending ? { text: String(pending.text ?? ""), toolCalls: (pending.tool_calls ?? []).map((x) => x.name) } : null,
    snapshotFromSeq: withSnap?.seq ?? null,
  };
}
