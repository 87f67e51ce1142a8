// Retention: terminal runs older than N days lose their intermediate checkpoints. The terminal record, the
// latest pointer, the conversation (message log), effects, approvals and the audit log stay, so the run
// page still shows what happened and the timeline says what was pruned.
import type { Db } from "../db/client.ts";
import { appendAudit } from "../db/audit.ts";
import { log } from "../log.ts";
import { pruneRunCheckpoints, prunableRuns } from "../db/maintenance.ts";

export async function pruneCheckpoints(
  db: Db,
  opts: { olderThanDays: number; nowMs?: number; batch?: number },
): Promise<{ runs: number; checkpoints: number }> {
  const before = new Date((opts.nowMs ?? Date.now()) - opts.olderThanDays * 24 * 60 * 60 * 1000);
  let runs = 0;
  let checkpoints = 0;
  for (;;) {
    const page = await prunableRuns(db, before, opts.batch ?? 200);
    if (!page.length) break;
    for (const r of page) {
      checkpoints += await pruneRunCheckpoints(db, r);
      runs++;
    }
  }
  if (runs) {
    await appendAudit(db, {
      actor: null,
      action: "retention.prune",
      targetType: "system",
      targetId: "retention",
      data: { older_than_days: opts.olderThanDays, runs, checkpoints },
    });
    log.info("retention pruned checkpoints", { runs, checkpoints, older_than_days: opts.olderThanDays });
  }
  return { runs, checkpoints };
}
