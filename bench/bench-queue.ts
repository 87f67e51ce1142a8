// The queue under a backlog, with real processes on PostgreSQL (tsx bench/bench-queue.ts; needs
// TEST_POSTGRES_URL): two `npm run worker` processes (AFK_WORKERS=4) and this process as a web-only
// instance (AFK_WORKERS=0) that queues 20 runs of order-status whose demo model calls take
// BENCH_LATENCY_MS (default 2000), so runs wait in the queue longer than the lease (AFK_LEASE_S, default 4).
//  1. nothing killed: takeovers logged by the three processes and pg-boss jobs per run;
//  2. one worker SIGKILLed mid-run with a backlog: how long until each of its runs executes again, and
//     how many runs that were queued before the kill started ahead of them.
import { type ChildProcess, spawn } from "node:child_process";
import { createContext } from "../lib/context.ts";
import { RUN_QUEUE } from "../lib/execution/queue.ts";
import { PgLiveBus } from "../lib/live/bus.ts";
import { startRun } from "../lib/services/start.ts";
import { scratchDatabase } from "../tests/helpers/scratch.ts";

const base = process.env.TEST_POSTGRES_URL;
if (!base) throw new Error("set TEST_POSTGRES_URL");
const LEASE_S = process.env.AFK_LEASE_S ?? "4";
const LATENCY = process.env.BENCH_LATENCY_MS ?? "2000";
const sub = { id: "bench-sub", email: "sub@example.com", name: "S", role: "submitter" as const };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Proc = { child: ChildProcess; lines: string[] };
function worker(url: string): Proc {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/worker.ts"], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      AFK_WORKERS: "4",
      AFK_LEASE_S: LEASE_S,
      AFK_DEMO_LATENCY_MS: LATENCY,
      LOG_LEVEL: "info",
      AFK_DATA_DIR: "data/test",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const p: Proc = { child, lines: [] };
  for (const s of [child.stdout, child.stderr]) s?.on("data", (d) => p.lines.push(...String(d).split("\n").filter(Boolean)));
  return p;
}

const takeovers = (lines: string[]) =>
  lines.filter((l) => l.includes('"run taken over"') || l.includes('"took over runs with expired leases"'));
const count = (lines: string[]) =>
  takeovers(lines).reduce(
    (n, l) => (l.includes('"run taken over"') ? n + 1 : l.includes("run_ids") ? n : n + Number(JSON.parse(l).count ?? 0)),
    0,
  );

async function scenario(kill: boolean) {
  const s = await scratchDatabase("postgresql", base, "afk_bench");
  const procs = [worker(s.url), worker(s.url)];
  const web = createContext(s.db, { queue: { url: s.url, concurrency: 0 }, live: new PgLiveBus(s.url), leaseMs: Number(LEASE_S) * 1000 });
  const webLines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    webLines.push(...String(chunk).split("\n").filter(Boolean));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  const sweep = setInterval(() => void web.executor.takeOverExpired().catch(() => 0), 5000);
  try {
    await web.queue!.ready();
    for (const p of procs) while (!p.lines.some((l) => l.includes('"worker started"'))) await sleep(100);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++)
      ids.push((await startRun(web, sub, { body: { agent: "order-status", input: { order_id: `ORD-${10000 + i}` } } })).id);
    let killedAt = 0;
    let victims: string[] = [];
    const queuedAtKill = new Set<string>();
    if (kill) {
      const victim = procs[0];
      const instance = JSON.parse(victim.lines.find((l) => l.includes('"worker started"')) ?? "{}").instance as string;
      while ((await s.db.run.count({ where: { leaseOwner: instance } })) < 4) await sleep(50);
      victims = (await s.db.run.findMany({ where: { leaseOwner: instance }, select: { id: true } })).map((r) => r.id);
      for (const r of await s.db.run.findMany({ where: { leaseOwner: "queued" }, select: { id: true } })) queuedAtKill.add(r.id);
      victim.child.kill("SIGKILL");
      killedAt = Date.now();
    }
    const t0 = Date.now();
    while ((await s.db.run.count({ where: { id: { in: ids }, state: "completed" } })) < 20) {
      if (Date.now() - t0 > 300_000) throw new Error("timed out");
      await sleep(200);
    }
    const jobs = Number(
      ((await s.db.$queryRawUnsafe(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1`, RUN_QUEUE)) as { n: number }[])[0].n,
    );
    const all = [...procs.flatMap((p) => p.lines), ...webLines];
    const result: Record<string, unknown> = { takeovers: count(all), jobs };
    if (kill) {
      // When each run started executing (its "run executing" line of the surviving worker, epoch 2 for D's).
      const executing = procs[1].lines
        .filter((l) => l.includes('"run executing"'))
        .map((l) => JSON.parse(l) as { run_id: string; epoch: number; time: string });
      const resumed = executing.filter((e) => victims.includes(e.run_id) && e.epoch > 1);
      const firstResumed = Math.min(...resumed.map((e) => Date.parse(e.time)));
      result.resumedAfterS = resumed.map((e) => ((Date.parse(e.time) - killedAt) / 1000).toFixed(1));
      // Runs that were waiting and started between the takeover and the first resumed run: 0 when the
      // taken-over runs go ahead of the backlog.
      const tookOver = Math.min(...takeovers(all).map((l) => Date.parse(JSON.parse(l).time)));
      result.takenOverAfterS = ((tookOver - killedAt) / 1000).toFixed(1);
      result.backlogStartedBetween = executing.filter(
        (e) => queuedAtKill.has(e.run_id) && Date.parse(e.time) > tookOver && Date.parse(e.time) < firstResumed,
      ).length;
      result.waitingAtKill = queuedAtKill.size;
    }
    return result;
  } finally {
    process.stderr.write = write;
    clearInterval(sweep);
    for (const p of procs) p.child.kill("SIGKILL");
    await web.queue?.stop(2000);
    await web.live.close();
    await s.drop();
  }
}

console.log(`lease ${LEASE_S} s, model calls ${LATENCY} ms; 2 workers (4 each) + 1 web-only, 20 runs`);
console.log("nothing killed:", JSON.stringify(await scenario(false)));
console.log("one worker killed:", JSON.stringify(await scenario(true)));
process.exit(0);
