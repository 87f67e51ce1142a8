// A metrics scrape: the gauges that are states of the database (runs by state, pending approvals and the
// oldest one's age, the run queue's jobs) read now, this process's own (runs executing here), then the
// registry as Prometheus text. A database that does not answer leaves those gauges out and says so
// (afk_metrics_database_up 0) instead of failing the scrape: the process's own counters still matter.
import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import type { AppContext } from "../context.ts";
import { queueJobsByState, runsByState } from "../db/ops.ts";
import { pendingSummary } from "../db/approvals.ts";
import { QUEUE_SCHEMA, RUN_QUEUE } from "../execution/queue.ts";
import { log } from "../log.ts";
import { metrics, renderMetrics } from "../metrics.ts";

export async function scrapeMetrics(
  ctx: Pick<AppContext, "db" | "queue" | "worker">,
  provider: string,
  nowMs = Date.now(),
): Promise<string> {
  const m = metrics();
  m.activeRuns.set(ctx.worker.activeCount());
  m.runs.reset();
  m.queueJobs.reset();
  try {
    const [states, pending, jobs] = await Promise.all([
      runsByState(ctx.db),
      pendingSummary(ctx.db),
      ctx.queue ? queueJobsByState(ctx.db, QUEUE_SCHEMA, RUN_QUEUE) : Promise.resolve({} as Record<string, number>),
    ]);
    for (const [state, n] of Object.entries(states)) m.runs.set({ state }, n);
    m.approvalsPending.set(pending.count);
    m.oldestPending.set(pending.oldestMs === null ? 0 : Math.max(0, nowMs - pending.oldestMs) / 1000);
    for (const [state, n] of Object.entries(jobs)) m.queueJobs.set({ state }, n);
    m.databaseUp.set(1);
  } catch (e) {
    log.warn("metrics: database reads failed", { error: String(e).slice(0, 200) });
    m.approvalsPending.reset();
    m.oldestPending.reset();
    m.databaseUp.set(0);
  }
  return renderMetrics(provider);
}

export type MetricsAccess = "off" | "denied" | "ok";

/** A scrape's credentials: `Authorization: Bearer <AFK_METRICS_TOKEN>`; with no token configured, "off". */
export function metricsAccess(authorization: string | null | undefined, token: string | undefined): MetricsAccess {
  if (!token) return "off";
  const given = /^Bearer\s+(.+)$/i.exec(authorization ?? "")?.[1]?.trim() ?? "";
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(token)) ? "ok" : "denied";
}
