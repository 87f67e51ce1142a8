import { NextResponse } from "next/server";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { runCounts } from "@/lib/db/runs";
import { appContext } from "@/lib/context";
import { backgroundStatus } from "@/lib/ops/background";

export const dynamic = "force-dynamic";

// Liveness and what an operator needs at a glance: the database, the run queue, this instance's work.
export async function GET() {
  const started = performance.now();
  try {
    const counts = await runCounts(db());
    return NextResponse.json({
      ok: true,
      database: env().databaseProvider,
      databaseLatencyMs: Math.round((performance.now() - started) * 10) / 10,
      queue: { pending: counts.pending ?? 0, running: counts.running ?? 0, paused: counts.paused ?? 0 },
      instance: { activeRuns: appContext().worker.activeCount(), lastSweepAt: backgroundStatus().lastSweepAt, pid: process.pid },
    });
  } catch {
    return NextResponse.json({ ok: false, database: env().databaseProvider, error: "database unreachable" }, { status: 503 });
  }
}
