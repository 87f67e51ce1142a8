// Worker benchmarks on PostgreSQL (part of `npm run bench`, or alone: tsx bench/bench-workers.ts):
//  - runs/s completed by 1, 2 and 4 `npm run worker` processes for a no-approval agent (order-status,
//    demo model), 200 runs queued at once;
//  - approve → next checkpoint latency p50/p95: a reviewer's decision on an auto-resuming agent, until the
//    run's `resumed` record is in the database, (a) decided on an instance that works the queue (as every
//    app instance does by default), (b) decided on a web-only instance (AFK_WORKERS=0) next to a worker.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { scratchDatabase } from "../tests/helpers/scratch.ts";
import type { Db } from "../lib/db/client.ts";
import { createContext } from "../lib/context.ts";
import { PgLiveBus } from "../lib/live/bus.ts";
import { decide } from "../lib/services/decide.ts";
import { startRun } from "../lib/services/start.ts";

const sub = { id: "bench-sub", email: "sub@example.com", name: "S", role: "submitter" as const };
const rev = (i: number) => ({ id: `bench-rev-${i}`, email: `rev${i}@example.com`, name: "R", role: "reviewer" as const });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function workers(n: number, url: string): ChildProcess[] {
  return Array.from({ length: n }, () =>
    spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/worker.ts"], {
      env: {
        ...process.env,
        DATABASE_URL: url,
        AFK_WORKERS: "4",
        LOG_LEVEL: "error",
        AFK_SWEEP_INTERVAL_S: "0",
        AFK_DATA_DIR: "data/test",
      },
      stdio: "ignore",
    }),
  );
}

async function waitFor(db: Db, where: Record<string, unknown>, count: number, timeoutMs = 300_000) {
  const t0 = Date.now();
  while ((await db.run.count({ where })) < count) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${count} runs ${JSON.stringify(where)}`);
    await sleep(20);
  }
}

// CPU time a process has used so far (user + system), from /proc; clock ticks are 10 ms on Linux.
function cpuMs(pid: number | undefined): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
// Busy CPU time of the whole machine (all processes, PostgreSQL included), from /proc/stat.
function machineBusyMs(): number {
  const [, ...v] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
  return (v[0] + v[1] + v[2] + v[5] + v[6]) * 10;
}

// Runs per worker process before the clock starts: a process's first runs pay for V8 compiling the code
// paths (tiering up), which more processes pay more times over.
const WARMUP = Number(process.env.BENCH_WARMUP ?? 30);

async function throughput(
  base: string,
  n: number,
  runs = 200,
): Promise<{ rps: number; workerCpuMsPerRun: number; machineCpuMsPerRun: number }> {
  const s = await scratchDatabase("postgresql", base, "afk_bench");
  const procs = workers(n, s.url);
  try {
    const live = new PgLiveBus(s.url);
    await live.ready;
    const ex = createContext(s.db, { queue: { url: s.url, concurrency: 0 }, live });
    const q = ex.queue!;
    await q.ready();
    await sleep(3000); // workers up and polling
    // A warm-up run per worker process.
    const warm = n * WARMUP;
    await Promise.all(
      Array.from({ length: warm }, (_, i) =>
        startRun(ex, sub, { body: { agent: "order-status", input: { order_id: `ORD-${1000 + i}` } } }),
      ),
    );
    await waitFor(s.db, { state: "completed" }, warm);
    const cpu0 = procs.reduce((a, p) => a + cpuMs(p.pid), 0);
    const busy0 = machineBusyMs();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: runs }, (_, i) =>
        startRun(ex, sub, { body: { agent: "order-status", input: { order_id: `ORD-${2000 + i}` } } }),
      ),
    );
    await waitFor(s.db, { state: "completed" }, runs + warm);
    const secs = (performance.now() - t0) / 1000;
    const workerCpu = procs.reduce((a, p) => a + cpuMs(p.pid), 0) - cpu0;
    const busy = machineBusyMs() - busy0;
    await q.stop(1000);
    await live.close();
    return { rps: runs / secs, workerCpuMsPerRun: workerCpu / runs, machineCpuMsPerRun: busy / runs };
  } finally {
    for (const p of procs) p.kill("SIGKILL");
    await sleep(300);
    await s.drop();
  }
}

async function latency(
  base: string,
  mode: "in-process" | "remote-worker",
  samples = 30,
): Promise<{ p50: number; p95: number; decideP50: number }> {
  const s = await scratchDatabase("postgresql", base, "afk_bench");
  const procs = mode === "remote-worker" ? workers(1, s.url) : [];
  // As lib/context.ts builds it: LISTEN/NOTIFY wakes the worker the moment the decision commits.
  const live = new PgLiveBus(s.url);
  await live.ready;
  const ex = createContext(s.db, { queue: { url: s.url, concurrency: mode === "in-process" ? 4 : 0 }, live });
  const q = ex.queue!;
  await q.ready();
  if (mode === "in-process") await q.work(ex.worker);
  else await sleep(3000);
  try {
    const ms: number[] = [];
    const decideMs: number[] = [];
    for (let i = 0; i < samples + 3; i++) {
      const { id } = await startRun(ex, sub, {
        body: {
          agent: "deploy-bot",
          input: { service: `svc-${i}`, version: "1.0.0", environment: "staging" },
        },
      });
      await waitFor(s.db, { id, state: "paused" }, 1);
      const t0 = performance.now();
      await decide(ex, rev(i), { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } });
      if (i >= 3) decideMs.push(performance.now() - t0);
      for (;;) {
        const row = await s.db.stateEntry.findFirst({
          where: { threadId: id, runId: id, kind: "checkpoint", phase: "resumed" },
          select: { key: true },
        });
        if (row) break;
        await sleep(2);
      }
      if (i >= 3) ms.push(performance.now() - t0); // the first few warm the worker up
      await waitFor(s.db, { id, state: "completed" }, 1);
    }
    ms.sort((a, b) => a - b);
    decideMs.sort((a, b) => a - b);
    return {
      p50: ms[Math.floor(ms.length * 0.5)],
      p95: ms[Math.ceil(ms.length * 0.95) - 1],
      decideP50: decideMs[Math.floor(decideMs.length * 0.5)],
    };
  } finally {
    await q.stop(1000);
    await ex.worker.idle();
    await live.close();
    for (const p of procs) p.kill("SIGKILL");
    await sleep(300);
    await s.drop();
  }
}

export async function benchWorkers(base: string, only?: "latency") {
  if (only !== "latency") {
    console.log(
      `\nworkers on PostgreSQL (order-status, no approvals, demo model; 200 runs queued at once, after ${WARMUP} warm-up runs per process)`,
    );
    console.log(`worker processes  runs/s   worker CPU ms/run   machine CPU ms/run   cores busy (of ${cpus().length})`);
    const seen: number[] = [];
    for (const n of [1, 2, 4]) {
      const r = await throughput(base, n);
      seen.push(r.rps);
      console.log(
        `${String(n).padStart(16)}  ${r.rps.toFixed(1).padStart(6)}   ${r.workerCpuMsPerRun.toFixed(1).padStart(17)}   ${r.machineCpuMsPerRun.toFixed(1).padStart(18)}   ${((r.machineCpuMsPerRun * r.rps) / 1000).toFixed(2).padStart(18)}`,
      );
    }
    const drop = Math.min(...seen.slice(1)) / seen[0];
    console.log(
      `target: runs/s must not drop as workers are added: ${drop >= 0.95 ? "met" : `NOT met (worst ${(drop * 100).toFixed(0)}% of 1 worker)`}`,
    );
  }
  console.log("\napprove → next checkpoint (deploy-bot resumes itself), 30 samples, ms; workers woken by LISTEN/NOTIFY");
  for (const mode of ["in-process", "remote-worker"] as const) {
    const r = await latency(base, mode);
    console.log(
      `${mode === "in-process" ? "decided on an instance that works the queue" : "decided on a web-only instance, 1 worker   "}  p50 ${r.p50.toFixed(1).padStart(6)}  p95 ${r.p95.toFixed(1).padStart(6)}   (the decision's transaction p50 ${r.decideP50.toFixed(1)}; target p95 ≤ 50: ${r.p95 <= 50 ? "met" : "MISSED"})`,
    );
  }
}

if (process.argv[1]?.endsWith("bench-workers.ts")) {
  const base = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
  if (!base) {
    console.log("(set BENCH_POSTGRES_URL or TEST_POSTGRES_URL)");
    process.exit(0);
  }
  await benchWorkers(base, process.argv.includes("--latency") ? "latency" : undefined);
  process.exit(0);
}
