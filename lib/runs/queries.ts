// Console reads of runner state (inbox, timeline). Every Prisma query of this area lives here.
import type { Db } from "../db/client.ts";
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
  const page = rows.slice(0, take);
  return {
    checkpoints: page.map((r) => normalizeCheckpointRecord(JSON.parse(r.value), r.key)),
    nextCursor: rows.length > take ? page[page.length - 1].key : null,
  };
}
