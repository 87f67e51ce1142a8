// The one place lib/notify reads approval requests (so a move of the approval store changes this file only).
import type { Db } from "../db/client.ts";
import { pendingApprovalPage } from "../db/read-models.ts";
import { getRunRow } from "../db/runs.ts";
import { type ApprovalRecord, type MemoryStore, getApproval, keys, listApprovals, listStored, parseApproval } from "../runner/index.ts";

export type { ApprovalRecord };

export const approvalReads = {
  /** The requests of a run (and its subagents) waiting for a decision: the run's own records, no scan. */
  async pendingOfRun(db: Db, store: MemoryStore, runId: string): Promise<ApprovalRecord[]> {
    const run = await getRunRow(db, runId);
    if (!run) return [];
    const own = await listApprovals(store, run.threadId, runId);
    const sub = (await listStored(store, run.threadId, keys.descendantApprovalPrefix(runId), "approval record")).map((e) =>
      parseApproval(e.value, e.key),
    );
    return [...own, ...sub].filter((a) => a.status === "pending");
  },
  /** Every request waiting, oldest first (the sweep plans what a crash left unplanned). */
  async allPending(db: Db, take = 2000): Promise<ApprovalRecord[]> {
    return (await pendingApprovalPage(db, { take, maxScan: take })).approvals;
  },
  /** One request as it is now (null: gone). */
  one: (store: MemoryStore, threadId: string, approvalId: string) => getApproval(store, threadId, approvalId),
};
