// The one place lib/notify reads approval requests (so a move of the approval store changes this file only).
import type { Db } from "../db/client.ts";
import { pendingApprovalPage } from "../db/read-models.ts";
import { type ApprovalRecord, type MemoryStore, getApproval } from "../runner/index.ts";

export type { ApprovalRecord };

export const approvalReads = {
  /** The requests of a run (and its subagents) waiting for a decision. */
  async pendingOfRun(db: Db, runId: string): Promise<ApprovalRecord[]> {
    return (await pendingApprovalPage(db, { runs: new Set([runId]), take: 500 })).approvals;
  },
  /** Every request waiting, oldest first (the sweep plans what a crash left unplanned). */
  async allPending(db: Db, take = 2000): Promise<ApprovalRecord[]> {
    return (await pendingApprovalPage(db, { take, maxScan: take })).approvals;
  },
  /** One request as it is now (null: gone). */
  one: (store: MemoryStore, threadId: string, approvalId: string) => getApproval(store, threadId, approvalId),
};
