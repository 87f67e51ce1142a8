// Sweep and retention: the background passes' reads and the checkpoint prune.
import { parseApproval, TERMINAL_STATES } from "../runner/index.ts";
import type { Db } from "./client.ts";
import { readAll } from "./read-models.ts";

export async function pendingApprovalRecords(db: Db) {
  const rows = await db.stateEntry.findMany({
    where: { kind: "approval", status: "pending" },
    select: { key: true, value: true, runId: true },
    take: 5000,
  });
  return readAll(rows, parseApproval);
}

export async function pausedRunIds(db: Db, agentNames: string[]): Promise<string[]> {
  if (!agentNames.length) return [];
  return (
    await db.run.findMany({ where: { state: "paused", corruptKey: null, agentName: { in: agentNames } }, select: { id: true }, take: 1000 })
  ).map((r) => r.id);
}

export const prunableRuns = (db: Db, before: Date, take: number) =>
  db.run.findMany({
    where: { state: { in: [...TERMINAL_STATES] }, finishedAt: { lt: before }, prunedAt: null },
    select: { id: true, threadId: true },
    take,
  });

// Deletes a run's checkpoint records except its terminal one (the latest copy is a different kind).
export async function pruneRunCheckpoints(db: Db, run: { id: string; threadId: string }): Promise<number> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.stateEntry.deleteMany({
      where: { threadId: run.threadId, runId: run.id, kind: "checkpoint", NOT: { phase: "run_terminal" } },
    });
    await tx.run.update({ where: { id: run.id }, data: { prunedAt: new Date(), prunedCheckpoints: { increment: count } } });
    return count;
  });
}

export async function storeFaultRunIds(db: Db): Promise<string[]> {
  return (
    await db.run.findMany({
      where: { state: "failed", corruptKey: null, error: { startsWith: "CheckpointWriteError" } },
      select: { id: true },
      take: 100,
    })
  ).map((r) => r.id);
}

export async function strandedPendingRunIds(db: Db, createdBeforeMs: number): Promise<string[]> {
  return (
    await db.run.findMany({ where: { state: "pending", createdAt: { lt: new Date(createdBeforeMs) } }, select: { id: true }, take: 100 })
  ).map((r) => r.id);
}
