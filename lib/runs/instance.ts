// The process's one executor. SQLite (one instance): runs execute in this process. PostgreSQL (several
// instances): runs go through the pg-boss queue, worked by every instance with AFK_WORKERS > 0 and by
// `npm run worker` processes.
import "server-only";
import { db } from "../db/client.ts";
import { env } from "../env.ts";
import type { AppContext } from "../context.ts";
import { RunExecutor } from "./executor.ts";
import { PgBossQueue } from "./queue.ts";
import { PgLiveBus } from "../live/bus.ts";

const g = globalThis as unknown as { afkExecutor?: RunExecutor; afkQueue?: PgBossQueue | null };

export function executor(): RunExecutor {
  if (!g.afkExecutor) {
    const e = env();
    const webhook =
      e.AFK_WEBHOOK_URL && e.AFK_WEBHOOK_SECRET
        ? { url: e.AFK_WEBHOOK_URL, secret: e.AFK_WEBHOOK_SECRET, baseUrl: e.NEXTAUTH_URL ?? "http://localhost:3000" }
        : null;
    const pgUrl = e.databaseProvider === "postgresql" ? e.DATABASE_URL : null;
    g.afkQueue = pgUrl ? new PgBossQueue(pgUrl, e.AFK_WORKERS) : null;
    g.afkExecutor = new RunExecutor(db(), {
      webhook,
      leaseMs: e.AFK_LEASE_S * 1000,
      queue: g.afkQueue ?? undefined,
      // SQLite has one instance: in-process delivery is all there is to do.
      live: pgUrl ? new PgLiveBus(pgUrl) : undefined,
    });
  }
  return g.afkExecutor;
}

export function queue(): PgBossQueue | null {
  executor();
  return g.afkQueue ?? null;
}

/** The process's context: its database, store, agents and executor (see lib/context.ts). */
export function appContext(): AppContext {
  return executor().context;
}
