// The probes an orchestrator asks. Liveness: the process answers (nothing else is checked: a database
// outage must not restart healthy processes). Readiness: the database answers, every migration this build
// ships is applied, and the process is not draining (from SIGTERM on, before its runs are drained, so the
// load balancer stops sending work first).
import "server-only";
import type { Db } from "../db/client.ts";
import type { Liveness, Readiness } from "../dto.ts";
import { appliedMigrations, ping, shippedMigrations } from "../db/ops.ts";

const g = globalThis as unknown as { afkDraining?: boolean; afkShipped?: Map<string, string[] | null> };

/** From now on this process is not ready (SIGTERM: the drain follows). */
export function startDraining() {
  g.afkDraining = true;
}

export const isDraining = () => g.afkDraining === true;

export function liveness(): Liveness {
  return { ok: true, pid: process.pid, uptimeS: Math.round(process.uptime()) };
}

const DB_TIMEOUT_MS = 2_000;

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export async function readiness(db: Db, provider: "sqlite" | "postgresql"): Promise<Readiness> {
  const draining = isDraining();
  const started = performance.now();
  const database: Readiness["database"] = { ok: false, latencyMs: null };
  const migrations: Readiness["migrations"] = { ok: false, pending: [] };
  try {
    await within(ping(db), DB_TIMEOUT_MS);
    database.ok = true;
    database.latencyMs = Math.round((performance.now() - started) * 10) / 10;
  } catch (e) {
    database.error = short(e);
  }
  if (database.ok) {
    // The build's migrations do not change while it runs: listed once per process.
    g.afkShipped ??= new Map();
    if (!g.afkShipped.has(provider)) g.afkShipped.set(provider, shippedMigrations(provider));
    const shipped = g.afkShipped.get(provider);
    if (!shipped) migrations.error = "this build has no migrations folder to compare with (prisma/<provider>/migrations)";
    else
      try {
        const applied = await within(appliedMigrations(db), DB_TIMEOUT_MS);
        migrations.pending = shipped.filter((m) => !applied.has(m));
        migrations.ok = migrations.pending.length === 0;
      } catch (e) {
        migrations.error = short(e);
      }
  }
  return { ready: !draining && database.ok && migrations.ok, draining, database, migrations };
}

const short = (e: unknown) => (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").slice(0, 200);
