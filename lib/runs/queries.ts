// Console reads of runner state (inbox, timeline). Every Prisma query of this area lives here.
import type { Db } from "../db/client.ts";
import { cursorPage } from "../db/pagination.ts";
import { type ApprovalRecord, type CheckpointRecord, normalizeCheckpointRecord, parseApproval } from "../runner/index.ts";

// Pending approvals across runs, oldest first: one indexed query on (kind, status, timestampMs).
export async function pendingApprovals(db: Db, opts: { agent?: string; tool?: string; take?: number } = {}): Promise<ApprovalRecord[]> {
  const rows = await db.stateEntry.findMany({
    where: { kind: "approval", status: "pending" },
    orderBy: [{ timestampMs: "asc" }, { key: "asc" }],
    take: Math.min(opts.take ?? 200, 1000),
    select: { key: true, value: true },
  });
  return rows
    .map((r) => parseApproval(JSON.parse(r.value), r.key))
    .filter((a) => (!opts.agent || a.agent_name === opts.agent) && (!opts.tool || a.tool_name === opts.tool));
}

export type TimelinePage = { checkpoints: CheckpointRecord[]; nextCursor: string | null };

// A run's checkpoints in write order, paginated by key: page N costs the same as page 1.
export async function checkpointTimeline(db: Db, threadId: string, runId: string, opts: { cursor?: string; take?: number } = {}): Promise<TimelinePage> {
  const take = Math.min(Math.max(opts.take ?? 100, 1), 500);
  const rows = await db.stateEntry.findMany({
    where: { threadId, runId, kind: "checkpoint", ...(opts.cursor ? { key: { gt: opts.cursor } } : {}) },
    orderBy: { key: "asc" },
    take: take + 1,
    select: { key: true, value: true },
  });
  const { page, nextCursor } = cursorPage(rows, take, (r) => r.key);
  return { checkpoints: page.map((r) => normalizeCheckpointRecord(JSON.parse(r.value), r.key)), nextCursor };
}

export const countPendingApprovals = (db: Db) => db.stateEntry.count({ where: { kind: "approval", status: "pending" } });

// ---- Run rows: the console's summary of each top-level run ----

export type NewRun = { id: string; agentName: string; input: unknown; submittedById: string | null; submittedByEmail: string | null; forkedFromRunId?: string; forkedFromSeq?: number };

export const createRunRow = (db: Db, r: NewRun) =>
  db.run.create({ data: { id: r.id, threadId: r.id, agentName: r.agentName, state: "pending", input: JSON.stringify(r.input), submittedById: r.submittedById, submittedByEmail: r.submittedByEmail, forkedFromRunId: r.forkedFromRunId, forkedFromSeq: r.forkedFromSeq } });

export const getRunRow = (db: Db, id: string) => db.run.findUnique({ where: { id } });

// ---- Leases. Each is one autocommit UPDATE (Prisma's updateMany reads first inside a transaction,
// which two SQLite connections can deadlock on). Times are epoch milliseconds: no time zones involved.

// Reserve a run for execution: from `from` to running, owned by the placeholder "queued".
export async function reserveRun(db: Db, id: string, from: string, leaseMs: number, cancel: boolean): Promise<boolean> {
  const until = BigInt(Date.now() + leaseMs);
  return (await db.$executeRaw`UPDATE "Run" SET "state" = 'running', "leaseOwner" = 'queued', "leaseUntilMs" = ${until}, "cancelRequested" = ("cancelRequested" OR ${cancel}) WHERE "id" = ${id} AND "state" = ${from}`) === 1;
}

export async function claimReserved(db: Db, id: string, owner: string, leaseMs: number): Promise<boolean> {
  const until = BigInt(Date.now() + leaseMs);
  return (await db.$executeRaw`UPDATE "Run" SET "leaseOwner" = ${owner}, "leaseUntilMs" = ${until} WHERE "id" = ${id} AND "state" = 'running' AND "leaseOwner" = 'queued'`) === 1;
}

// Claim a running run whose lease expired (its worker died), or — any=true, single instance only — any.
export async function takeOver(db: Db, id: string, owner: string, leaseMs: number, any = false): Promise<boolean> {
  const now = BigInt(Date.now());
  const until = BigInt(Date.now() + leaseMs);
  return (await db.$executeRaw`UPDATE "Run" SET "leaseOwner" = ${owner}, "leaseUntilMs" = ${until} WHERE "id" = ${id} AND "state" = 'running' AND (${any} OR "leaseUntilMs" IS NULL OR "leaseUntilMs" < ${now})`) === 1;
}

export async function expiredLeases(db: Db): Promise<string[]> {
  const rows = await db.run.findMany({ where: { state: "running", OR: [{ leaseUntilMs: null }, { leaseUntilMs: { lt: BigInt(Date.now()) } }] }, select: { id: true }, take: 100 });
  return rows.map((r) => r.id);
}

export async function renewLeases(db: Db, ids: string[], owner: string, leaseMs: number) {
  const until = BigInt(Date.now() + leaseMs);
  await db.run.updateMany({ where: { id: { in: ids }, leaseOwner: owner, state: "running" }, data: { leaseUntilMs: until } });
  return db.run.findMany({ where: { id: { in: ids }, leaseOwner: owner }, select: { id: true, cancelRequested: true } });
}

// Hand a run back: its lease expires now, so any instance takes it over.
export async function releaseLease(db: Db, id: string, owner: string) {
  await db.$executeRaw`UPDATE "Run" SET "leaseUntilMs" = ${BigInt(Date.now() - 1)} WHERE "id" = ${id} AND "leaseOwner" = ${owner}`;
}

const clearedLease = { leaseOwner: null, leaseUntilMs: null, cancelRequested: false };

export const setRunState = (db: Db, id: string, data: { state: string; error?: string | null; finishedAt?: Date | null }) =>
  db.run.update({ where: { id }, data: { ...data, ...(data.state === "running" ? {} : clearedLease) } });

export const updateRunProgress = (db: Db, id: string, p: { step?: number; phase?: string }) => db.run.updateMany({ where: { id, state: "running" }, data: p });

// Only the lease holder writes the outcome: a worker that lost its lease cannot overwrite its successor's.
export const finishRunRow = (db: Db, id: string, owner: string, r: { state: string; step: number; model: string; totalTokens: number; costUsd: number; error: string | null; phase?: string; finishedAt: Date | null }) =>
  db.run.updateMany({ where: { id, leaseOwner: owner }, data: { ...r, ...clearedLease } });

export type RunFilters = { state?: string; agent?: string; submitter?: string; from?: Date; to?: Date; q?: string; cursor?: string; take?: number; onlySubmittedById?: string };

// Newest first, cursor = the last row's id. Every filter is an indexed column.
export async function listRunRows(db: Db, f: RunFilters) {
  const take = Math.min(Math.max(f.take ?? 50, 1), 200);
  const rows = await db.run.findMany({
    where: {
      state: f.state,
      agentName: f.agent,
      submittedByEmail: f.submitter,
      submittedById: f.onlySubmittedById,
      id: f.q ? { startsWith: f.q } : undefined,
      createdAt: f.from || f.to ? { gte: f.from, lte: f.to } : undefined,
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: take + 1,
    ...(f.cursor ? { cursor: { id: f.cursor }, skip: 1 } : {}),
  });
  const { page, nextCursor } = cursorPage(rows, take, (r) => r.id);
  return { runs: page, nextCursor };
}

// ---- Timeline ----

export async function checkpointBySeq(db: Db, threadId: string, runId: string, seq: number): Promise<CheckpointRecord | null> {
  // seq is the key's 4th segment; the step is not known, so match on the suffix-free prefix and seq.
  const rows = await db.stateEntry.findMany({ where: { threadId, runId, kind: "checkpoint", key: { contains: `:${String(seq).padStart(4, "0")}:` } }, select: { key: true, value: true } });
  const hit = rows.map((r) => normalizeCheckpointRecord(JSON.parse(r.value), r.key)).find((c) => c.seq === seq);
  return hit ?? null;
}

// The newest checkpoint with a full runtime snapshot at or before the given key (snapshot phases only).
export async function snapshotCheckpointAtOrBefore(db: Db, threadId: string, runId: string, key: string): Promise<CheckpointRecord | null> {
  const row = await db.stateEntry.findFirst({
    where: { threadId, runId, kind: "checkpoint", phase: { in: ["run_started", "step_started", "post_llm", "post_tool_batch"] }, key: { lte: key } },
    orderBy: { key: "desc" },
    select: { key: true, value: true },
  });
  return row ? normalizeCheckpointRecord(JSON.parse(row.value), row.key) : null;
}

export const countCheckpoints = (db: Db, threadId: string, runId: string) => db.stateEntry.count({ where: { threadId, runId, kind: "checkpoint" } });

// ---- Webhook deliveries ----

export const webhookDeliveries = (db: Db, runId: string) => db.webhookDelivery.findMany({ where: { runId }, orderBy: { createdAt: "desc" }, take: 20 });

export async function checkpointTimestamp(db: Db, threadId: string, key: string): Promise<number | null> {
  const row = await db.stateEntry.findUnique({ where: { threadId_key: { threadId, key } }, select: { timestampMs: true } });
  return row?.timestampMs != null ? Number(row.timestampMs) : null;
}

// ---- Sweep and retention ----

export const pendingApprovalRows = (db: Db) => db.stateEntry.findMany({ where: { kind: "approval", status: "pending" }, select: { key: true, value: true }, take: 5000 });

export async function pausedRunIds(db: Db, agentNames: string[]): Promise<string[]> {
  if (!agentNames.length) return [];
  return (await db.run.findMany({ where: { state: "paused", agentName: { in: agentNames } }, select: { id: true }, take: 1000 })).map((r) => r.id);
}

export const prunableRuns = (db: Db, before: Date, take: number) =>
  db.run.findMany({ where: { state: { in: ["completed", "failed", "cancelled"] }, finishedAt: { lt: before }, prunedAt: null }, select: { id: true, threadId: true }, take });

// Deletes a run's checkpoint records except its terminal one (the latest copy is a different kind).
export async function pruneRunCheckpoints(db: Db, run: { id: string; threadId: string }): Promise<number> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.stateEntry.deleteMany({ where: { threadId: run.threadId, runId: run.id, kind: "checkpoint", NOT: { phase: "run_terminal" } } });
    await tx.run.update({ where: { id: run.id }, data: { prunedAt: new Date(), prunedCheckpoints: { increment: count } } });
    return count;
  });
}

export const orphanRuns = (db: Db) => db.run.findMany({ where: { state: { in: ["running", "pending"] } }, select: { id: true, threadId: true, agentName: true, state: true }, take: 1000 });

export async function runCounts(db: Db) {
  const rows = await db.run.groupBy({ by: ["state"], _count: { _all: true }, where: { state: { in: ["pending", "running", "paused"] } } });
  return Object.fromEntries(rows.map((r) => [r.state, r._count._all])) as Record<string, number>;
}

export async function storeFaultRunIds(db: Db): Promise<string[]> {
  return (await db.run.findMany({ where: { state: "failed", error: { startsWith: "CheckpointWriteError" } }, select: { id: true }, take: 100 })).map((r) => r.id);
}

export async function strandedPendingRunIds(db: Db, createdBeforeMs: number): Promise<string[]> {
  return (await db.run.findMany({ where: { state: "pending", createdAt: { lt: new Date(createdBeforeMs) } }, select: { id: true }, take: 100 })).map((r) => r.id);
}
