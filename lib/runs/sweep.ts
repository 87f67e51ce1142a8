// The scheduled sweep. Every instance runs it; each change is a compare-and-set, so it happens once:
//  - an approval past its deadline takes its fallback (deny by default) and its run resumes;
//  - a paused run whose approvals are all decided and whose agent resumes by itself is resumed (this
//    recovers a resume lost to a crash between the decision and the claim);
//  - a run that stopped because the database was unreachable is retried from its last durable checkpoint.
import type { Db } from "../db/client.ts";
import { appendAudit } from "../audit/queries.ts";
import { type Agent, expireApproval, parseApproval } from "../runner/index.ts";
import { log } from "../log.ts";
import type { RunExecutor } from "./executor.ts";
import { pendingApprovalsOf } from "./view.ts";
import { getRunRow, pausedRunIds, pendingApprovalRows, storeFaultRunIds, strandedPendingRunIds } from "./queries.ts";

export type SweepResult = { expired: number; resumed: number; retried: number };

export async function sweep(db: Db, ex: RunExecutor, nowMs = Date.now()): Promise<SweepResult> {
  const result: SweepResult = { expired: 0, resumed: 0, retried: 0 };
  const touched = new Set<string>();
  for (const row of await pendingApprovalRows(db)) {
    const rec = parseApproval(JSON.parse(row.value), row.key);
    if (rec.deadline_ms === null || nowMs <= rec.deadline_ms) continue;
    const { record, applied } = await expireApproval(ex.rt.store, rec, nowMs);
    if (!applied) continue;
    result.expired++;
    touched.add(rec.root_run_id);
    await appendAudit(db, { actor: null, action: `approval.${record.status === "approved" ? "deadline_allow" : "deadline_deny"}`, targetType: "run", targetId: rec.root_run_id, data: { approval_id: rec.id, tool: rec.tool_name, fallback: rec.fallback } });
  }
  const agents = ex.rt.agents as Record<string, Agent>;
  for (const id of await pausedRunIds(db, Object.keys(agents).filter((n) => agents[n].autoResume))) touched.add(id);
  for (const runId of touched) {
    const run = await getRunRow(db, runId);
    if (!run || run.state !== "paused") continue;
    if ((await pendingApprovalsOf(ex.rt.store, run.threadId, runId)).length) continue;
    if (await ex.resume(runId)) {
      result.resumed++;
      await appendAudit(db, { actor: null, action: "run.auto_resume", targetType: "run", targetId: runId, data: { by: "sweep" } });
    }
  }
  // A run whose row was created but never reserved (the instance died between the two) is started.
  for (const id of await strandedPendingRunIds(db, nowMs - ex.leaseMs)) {
    if (await ex.start(id)) result.resumed++;
  }
  // A run stopped by a store fault (database unreachable) goes on by itself once the database answers.
  for (const id of await storeFaultRunIds(db)) {
    if (await ex.retry(id).catch(() => false)) {
      result.retried++;
      await appendAudit(db, { actor: null, action: "run.auto_retry", targetType: "run", targetId: id, data: { reason: "store fault" } });
    }
  }
  if (result.expired || result.resumed || result.retried) log.info("sweep", result);
  return result;
}
