// Pending approvals in bulk for list and page tests: copies of one stored approval record (the template,
// from a real run paused on it), each the approval of a run of its own at the template's step and call,
// written through the store's approvals port.
import type { Db } from "@/lib/db/client";
import { PrismaStore } from "@/lib/db/store";
import { type ApprovalRecord, approvalId } from "@/lib/runner";

/** n copies of template; copy(k) names the k-th's run and any fields it changes. */
export async function putApprovalCopies(
  db: Db,
  template: Record<string, unknown>,
  n: number,
  copy: (k: number) => { runId: string } & Record<string, unknown>,
) {
  const { approvals } = new PrismaStore(db);
  const step = Number(template.step);
  const call = String(template.tool_call_id);
  for (let i = 0; i < n; i++) {
    const { runId, ...fields } = copy(i);
    const rec = { ...template, id: approvalId(runId, step, call), run_id: runId, root_run_id: runId, thread_id: `copies${i}`, ...fields };
    await approvals.create(rec as ApprovalRecord, JSON.stringify(rec));
  }
}
