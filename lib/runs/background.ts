// Background work each server instance does: recover runs a crashed embedded server left running, the
// deadline/resume sweep, and retention. Started once from instrumentation.
import { db } from "../db/client.ts";
import { env } from "../env.ts";
import { log } from "../log.ts";
import { executor } from "./instance.ts";
import { pruneCheckpoints } from "./retention.ts";
import { sweep } from "./sweep.ts";

const g = globalThis as unknown as { afkBackground?: { lastSweepAt: number | null; timers: NodeJS.Timeout[] } };

export function backgroundStatus() {
  return { lastSweepAt: g.afkBackground?.lastSweepAt ?? null };
}

export function startBackground() {
  if (g.afkBackground) return;
  const e = env();
  const state = (g.afkBackground = { lastSweepAt: null as number | null, timers: [] as NodeJS.Timeout[] });
  // With SQLite there is exactly one instance, so whatever is "running" in the database was ours.
  if (e.databaseProvider === "sqlite") void executor().recover().then((n) => n && log.info("recovered runs", { count: n }), (err) => log.error("recovery failed", { error: String(err) }));
  if (e.AFK_SWEEP_INTERVAL_S > 0) {
    const t = setInterval(() => {
      sweep(db(), executor())
        .then(() => (state.lastSweepAt = Date.now()))
        .catch((err) => log.error("sweep failed", { error: String(err) }));
    }, e.AFK_SWEEP_INTERVAL_S * 1000);
    t.unref();
    state.timers.push(t);
  }
  if (e.AFK_RETENTION_DAYS) {
    const days = e.AFK_RETENTION_DAYS;
    const t = setInterval(() => void pruneCheckpoints(db(), { olderThanDays: days }).catch((err) => log.error("retention failed", { error: String(err) })), 60 * 60 * 1000);
    t.unref();
    state.timers.push(t);
  }
}
