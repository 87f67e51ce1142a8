// Deadlines and the scheduled sweep. Every instance runs it; each change is a compare-and-set, so it
// happens once:
//  - an approval past its deadline takes its fallback (deny by default), written with its audit entry in
//    one transaction as a person's decision is, followed by the same steps (requestDecided in decide.ts),
//    and its run resumes (unless its agent opted out of resuming by itself, `autoResume: false`);
//  - a paused run whose approvals are all decided and whose agent resumes by itself is resumed (this
//    recovers a resume lost to a crash between the decision and the claim, or a decision that landed
//    while the run was still pausing);
//  - a run that stopped because the database was unreachable is retried from its last durable checkpoint.
// One unreadable record breaks only its own run: the sweep marks that run corrupt (so nothing claims it
// again), logs the key once per process, and goes on with the rest.
import type { AppContext } from "../context.ts";
import { pendingApprovals, readPending } from "../db/approvals.ts";
import { appendAudit } from "../db/audit.ts";
import { type Db, transaction } from "../db/client.ts";
import { pausedRunIds, storeFaultRunIds, strandedPendingRunIds } from "../db/maintenance.ts";
import type { UnreadableRow } from "../db/read-models.ts";
import { getRunRow, lockRun, markRunCorrupt } from "../db/runs.ts";
import { PrismaStore } from "../db/store.ts";
import { log } from "../log.ts";
import { AgentCheckpointCorruptionError, expireApproval, RUN, resumesByItself, rootRunOf } from "../runner/index.ts";
import { requestDecided } from "./decide.ts";
import { pendingApprovalsOf } from "./run-view.ts";

export type SweepResult = { expired: number; resumed: number; retried: number; corrupt: number };

const reported = new Set<string>();

async function setAside(db: Db, bad: UnreadableRow, result: SweepResult) {
  result.corrupt++;
  if (bad.runId) await markRunCorrupt(db, rootRunOf(bad.runId), bad.key);
  if (reported.has(bad.key)) return;
  reported.add(bad.key);
  log.error("sweep: unreadable record skipped", { key: bad.key, run_id: bad.runId, error: bad.message });
}

// Runs one item of the sweep; a corrupt record stops that item only.
async function isolated(db: Db, runId: string, result: SweepResult, fn: () => Promise<void>) {
  try {
    await fn();
  } catch (e) {
    if (!(e instanceof AgentCheckpointCorruptionError)) throw e;
    await setAside(db, { key: e.key ?? "(unknown key)", runId, message: e.message }, result);
  }
}

export async function sweep(ctx: AppContext, nowMs = Date.now()): Promise<SweepResult> {
  const { db, executor: ex } = ctx;
  const result: SweepResult = { expired: 0, resumed: 0, retried: 0, corrupt: 0 };
  const expired = new Set<string>();
  const { approvals: pending, corrupt: bad } = readPending((await pendingApprovals(db, { take: 5000 })).rows);
  for (const b of bad) await setAside(db, b, result);
  for (const rec of pending) {
    if (rec.deadline_ms === null || nowMs <= rec.deadline_ms) continue;
    await isolated(db, rec.root_run_id, result, async () => {
      const { record, applied } = await transaction(db, async (tx) => {
        await lockRun(tx, rec.root_run_id);
        // Counted after the commit (requestDecided), as a reviewer's decision is.
        const outcome = await expireApproval(new PrismaStore(tx, null, { countApprovals: false }), rec, nowMs);
        if (outcome.applied)
          await appendAudit(tx, {
            actor: null,
            action: `approval.${outcome.record.status === "approved" ? "deadline_allow" : "deadline_deny"}`,
            targetType: "run",
            targetId: rec.root_run_id,
            data: { approval_id: rec.id, tool: rec.tool_name, fallback: rec.fallback },
          });
        return outcome;
      });
      if (!applied) return;
      result.expired++;
      expired.add(rec.root_run_id);
      await requestDecided(ctx, { rootRunId: rec.root_run_id, approval: record, external: !!record.external });
    });
  }
  // Runs that go on by themselves once nothing waits (an expiry above, or a decision whose resume was lost).
  const resumable = new Set([
    ...expired,
    ...(await pausedRunIds(
      db,
      ctx.agents
        .startable()
        .filter(resumesByItself)
        .map((a) => a.name),
    )),
  ]);
  for (const runId of resumable) {
    await isolated(db, runId, result, async () => {
      const run = await getRunRow(db, runId);
      if (run?.state !== RUN.paused || run.corruptKey || run.runtimeTokenId) return;
      const agent = ctx.agents.find(run.agentName);
      if (!agent || !resumesByItself(agent)) return;
      if ((await pendingApprovalsOf(db, runId)).length) return;
      if (await ex.resumeWithAudit(runId, null, { by: "sweep" })) result.resumed++;
    });
  }
  // A run whose row was created but never reserved (the instance died between the two) is started.
  for (const id of await strandedPendingRunIds(db, nowMs - ex.leaseMs)) {
    if (await ex.start(id)) result.resumed++;
  }
  // A run stopped by a store fault (database unreachable) goes on by itself once the database answers.
  for (const id of await storeFaultRunIds(db)) {
    await isolated(db, id, result, async () => {
      if (await ex.retry(id).catch((e) => (e instanceof AgentCheckpointCorruptionError ? Promise.reject(e) : false))) {
        result.retried++;
        await appendAudit(db, { actor: null, action: "run.auto_retry", targetType: "run", targetId: id, data: { reason: "store fault" } });
      }
    });
  }
  if (result.expired || result.resumed || result.retried) log.info("sweep", result);
  return result;
}
