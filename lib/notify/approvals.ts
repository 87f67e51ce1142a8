// The one place lib/notify reads approval requests (so a move of the approval store changes this file only):
// pending ones through the one query of them (lib/db/approvals.ts), one by id through the runner's port.
import type { Db } from "../db/client.ts";
import { pendingApprovals, readPending } from "../db/approvals.ts";
import { type ApprovalRecord, type MemoryStore, getApproval } from "../runner/index.ts";

export type { ApprovalRecord };

export const approvalReads = {
  /** The requests of a run (and its subagents) waiting for a decision: its tree's rows on their index, no scan. */
  async pendingOfRun(db: Db, runId: string): Promise<ApprovalRecord[]> {
    return readPending((await pendingApprovals(db, { rootRunId: runId, take: 1000 })).rows).approvals;
  },
  /** Every request waiting, oldest first (the sweep plans what a crash left unplanned). */
  async allPending(db: Db, take = 2000): Promise<ApprovalRecord[]> {
    return readPending((await pendingApprovals(db, { take })).rows).approvals;
  },
  /** One request as it is now (null: gone). */
  one: (store: MemoryStore, threadId: string, approvalId: string) => getApproval(store, threadId, approvalId),
};
