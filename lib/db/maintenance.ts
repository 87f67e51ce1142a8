// Sweep and retention: the background passes' reads and the checkpoint prune.
import { RUN, TERMINAL_STATES } from "../runner/index.ts";
import { type Db, transaction } from "./client.ts";

export async function pausedRunIds(db: Db, agentNames: string[]): Promise<string[]> {
  if (!agentNames.length) return [];
  return (
    await db.run.findMany({
      where: { state: RUN.paused, corruptKey: null, runtimeTokenId: null, agentName: { in: agentNames } },
      select: { id: true },
      take: 1000,
    })
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
  return transaction(db, async (tx) => {
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
      where: { state: RUN.failed, corruptKey: null, runtimeTokenId: null, error: { startsWith: "CheckpointWriteError" } },
      select: { id: true },
      take: 100,
    })
  ).map((r) => r.id);
}

export async function strandedPendingRunIds(db: Db, createdBeforeMs: number): Promise<string[]> {
  return (
    await db.run.findMany({ where: { state: RUN.pending, createdAt: { lt: new Date(createdBeforeMs) } }, select: { id: true }, take: 100 })
  ).map((r) => r.id);
}
