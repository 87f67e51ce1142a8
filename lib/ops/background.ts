// Background work of each server or worker process: work the queue (PostgreSQL), take over runs whose
// worker died, the deadline/resume sweep, retention, and recovery after a crash of the embedded server.
import { appContext } from "../context.ts";
import { env } from "../env.ts";
import { log } from "../log.ts";
import { startDraining } from "./probes.ts";
import { startOpsServer } from "./server.ts";
import { stopTracing } from "../telemetry/sdk.ts";
import { pruneCheckpoints } from "../execution/retention.ts";
import { sweep } from "../services/deadlines.ts";

const g = globalThis as unknown as { afkBackground?: { lastSweepAt: number | null; timers: NodeJS.Timeout[] } };

export function backgroundStatus() {
  return { lastSweepAt: g.afkBackground?.lastSweepAt ?? null };
}

export function startBackground() {
  if (g.afkBackground) return;
  const e = env();
  const ctx = appContext();
  const { executor: ex, worker, queue: q } = ctx;
  const state = { lastSweepAt: null as number | null, timers: [] as NodeJS.Timeout[] };
  g.afkBackground = state;
  // The queue's loops (AFK_WORKERS of them; none on a web-only instance) are the only way in to the worker.
  if (q) void q.work(worker).catch((err) => log.error("queue workers failed to start", { error: String(err) }));
  // With SQLite there is exactly one instance, so whatever is "running" in the database was ours.
  if (e.databaseProvider === "sqlite")
    void ex.recover().then(
      (n) => n && log.info("recovered runs", { count: n }),
      (err) => log.error("recovery failed", { error: String(err) }),
    );
  if (e.AFK_SWEEP_INTERVAL_S > 0) {
    // Runs whose worker stalled or died, expired deadlines, decided runs whose resume was lost to a crash:
    // once at start (a restarted instance picks them up in its first second), then every interval.
    let sweeping = false;
    const tick = () => {
      if (sweeping) return;
      sweeping = true;
      Promise.all([ex.takeOverExpired(), sweep(ctx)])
        .then(() => (state.lastSweepAt = Date.now()))
        .catch((err) => log.error("sweep failed", { error: String(err) }))
        .finally(() => (sweeping = false));
    };
    const first = setTimeout(tick, 500);
    first.unref();
    const t = setInterval(tick, e.AFK_SWEEP_INTERVAL_S * 1000);
    t.unref();
    state.timers.push(t, first);
  }
  ctx.notifier?.start();
  if (e.AFK_RETENTION_DAYS) {
    const days = e.AFK_RETENTION_DAYS;
    const t = setInterval(
      () => void pruneCheckpoints(ctx.db, { olderThanDays: days }).catch((err) => log.error("retention failed", { error: String(err) })),
      60 * 60 * 1000,
    );
    t.unref();
    state.timers.push(t);
  }
  // This process's ops port (probes, metrics): how a worker is probed and scraped.
  if (e.AFK_OPS_PORT)
    void startOpsServer(ctx, { port: e.AFK_OPS_PORT, host: e.AFK_OPS_HOST, token: e.AFK_METRICS_TOKEN, provider: e.databaseProvider }).then(
      (s) => log.info("ops port listening", { address: s.address() }),
      (err) => log.error("ops port failed to open", { port: e.AFK_OPS_PORT, error: String(err) }),
    );
  // Graceful shutdown: not ready from the signal on (so no new work is routed here), then finish or hand
  // back this process's runs, in one budget (AFK_DRAIN_S): the queue stops taking jobs, the runs get the
  // budget to pause or end, the rest are handed back, and the queue closes in what is left (a second at least).
  const stop = async (signal: string) => {
    startDraining();
    const deadline = Date.now() + e.AFK_DRAIN_S * 1000;
    log.info("shutting down", { signal, active_runs: worker.activeCount(), instance: worker.instanceId, drain_s: e.AFK_DRAIN_S });
    for (const t of state.timers) clearInterval(t);
    ctx.notifier?.stop();
    q?.pause();
    await worker.shutdown(e.AFK_DRAIN_S * 1000);
    await q?.stop(Math.max(0, deadline - Date.now()));
    // The spans of what stopped just now, then the rest of the buffer.
    await stopTracing();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}
