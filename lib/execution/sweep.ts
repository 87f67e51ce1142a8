// The scheduled sweep. Every instance runs it; each change is a compare-and-set, so it happens once:
//  - an approval past its deadline takes its fallback (deny by default) and its run resumes, as after a
//    person's decision (unless its agent opted out of resuming by itself, `autoResume: false`);
//  - a paused run whose approvals are all decided and whose agent resumes by itself is resumed (this
//    recovers a resume lost to a crash between the decision and the claim, or a decision that landed
//    while the run was still pausing);
//  - a run that stopped because the database was unreachable is retried from its last durable checkpoint.
// One unreadable record breaks only its own run: the sweep marks that run corrupt (so nothing claims it
// again), logs the key once per process, and goes on with the rest.
import type { Db } from "../db/client.ts";
import { appendAudit } from "../db/audit.ts";
import { AgentCheckpointCorruptionError, expireApproval, resumesByItself, rootRunOf } from "../runner/index.ts";
import { log } from "../log.ts";
import type { AppContext } from "../context.ts";
import { pendingApprovalsOf } from "../services/run-view.ts";
import { getRunRow, markRunCorrupt } from "../db/runs.ts";
import { pausedRunIds, storeFaultRunIds, strandedPendingRunIds } from "../db/maintenance.ts";
import { pendingApprovals, readPending } from "../db/approvals.ts";
import type { UnreadableRow } from "../db/read-models.ts";
import { toRuntimeDecision } from "../services/runtime-view.ts";
import { notifyDecided } from "../webhooks/pause.ts";

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
  const touched = new Set<string>();
  const { approvals: pending, corrupt: bad } = readPending((await pendingApprovals(db, { take: 5000 })).rows);
  for (const b of bad) await setAside(db, b, result);
  for (const rec of pending) {
    if (rec.deadline_ms === null || nowMs <= rec.deadline_ms) continue;
    await isolated(db, rec.root_run_id, result, async () => {
      const { record, applied } = await expireApproval(ctx.store, rec, nowMs);
      if (!applied) return;
      result.expired++;
      touched.add(rec.root_run_id);
      await appendAudit(db, {
        actor: null,
        action: `approval.${record.status === "approved" ? "deadline_allow" : "deadline_deny"}`,
        targetType: "run",
        targetId: rec.root_run_id,
        data: { approval_id: rec.id, tool: rec.tool_name, fallback: rec.fallback },
      });
      // An external runtime hears of it as of any decision.
      if (record.external && ctx.webhook)
        await notifyDecided(db, ctx.webhook, rec.root_run_id, [toRuntimeDecision(record, null)]).catch((e) =>
          log.warn("decision webhook failed", { run_id: rec.root_run_id, error: String(e) }),
        );
    });
  }
  for (const id of await pausedRunIds(
    db,
    ctx.agents
      .startable()
      .filter(resumesByItself)
      .map((a) => a.name),
  ))
    touched.add(id);
  for (const runId of touched) {
    await isolated(db, runId, result, async () => {
      const run = await getRunRow(db, runId);
      if (run?.state !== "paused" || run.corruptKey || run.runtimeTokenId) return;
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
  if (result.expired) ctx.live.publish({ topic: "inbox" });
  // A runtime's long-poll on a run whose interrupt expired wakes up.
  for (const runId of touched) ctx.live.publish({ topic: "run", runId });
  return result;
}
