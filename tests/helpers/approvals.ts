// Pending approvals in bulk for list and page tests: copies of one stored approval record (the template,
// from a real run paused on it), each the approval of a run of its own at the template's step and call,
// written through the store in batches.
import type { Db } from "@/lib/db/client";
import { PrismaStore } from "@/lib/db/store";
import { approvalId, keys } from "@/lib/runner";

/** n copies of template; copy(k) names the k-th's run and any fields it changes. */
export async function putApprovalCopies(
  db: Db,
  template: Record<string, unknown>,
  n: number,
  copy: (k: number) => { runId: string } & Record<string, unknown>,
) {
  const store = new PrismaStore(db);
  const step = Number(template.step);
  const call = String(template.tool_call_id);
  for (let i = 0; i < n; i += 200)
    await store.putStates(
      `copies${i}`,
      Array.from({ length: Math.min(200, n - i) }, (_, j) => {
        const { runId, ...fields } = copy(i + j);
        return {
          key: keys.approval(runId, step, call),
          value: { ...template, id: approvalId(runId, step, call), run_id: runId, root_run_id: runId, ...fields },
        };
      }),
    );
}
