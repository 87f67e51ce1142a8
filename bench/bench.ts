// npm run bench — per-step cost of the runner for 10/50/200-step deterministic runs (one tool call per
// step) with no store, in memory, on SQLite and on PostgreSQL (BENCH_POSTGRES_URL or TEST_POSTGRES_URL);
// bytes stored, time to resume, and time to list the whole history; tracing's overhead per step
// (bench-traces.ts). Prints a table.
import path from "node:path";
import { type Db, driverOf } from "../lib/db/client.ts";
import { scratchDatabase } from "../tests/helpers/scratch.ts";
import { benchWorkers } from "./bench-workers.ts";
import { benchTraces } from "./bench-traces.ts";
import { runnerAgainst } from "./bench-runner-side.ts";
import { NullStore, countingAgent, countingModel } from "./bench-agent.ts";
import { PrismaStore } from "../lib/db/store.ts";
import {
  FailpointError,
  InMemoryStore,
  type MemoryStore,
  Runner,
  keys,
  listCheckpoints,
  loadLatestCheckpoint,
  loadSnapshot,
} from "../lib/runner/index.ts";

const benchAgent = (steps: number) => countingAgent("bench", steps);
const model = countingModel;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Per store and size: commits per step, and ms per step spent waiting on them.
const commitsPerStep: Record<string, number> = {};
const commitShare: Record<string, number> = {};

type Row = {
  store: string;
  steps: number;
  msPerStep: number;
  bytes: number | null;
  resumeMs: number | null;
  historyMs: number | null;
  checkpoints: number | null;
};

async function measure(label: string, store: MemoryStore, steps: number, bytesOf: (runId: string) => Promise<number | null>): Promise<Row> {
  const runId = `bench-${label}-${steps}-${Date.now()}`;
  // Warm-up run so JIT and connection pools do not count.
  await new Runner(store, { demo: model(3) }).run(benchAgent(3), { userMessage: "go", runId: `${runId}-warm` });
  // Median of three runs: this machine's 2 cores are shared, single runs are noisy. The run waits on its
  // commits (every putStates); their share is the floor the durability rules leave.
  const times: number[] = [];
  const commitTimes: number[] = [];
  const timed: MemoryStore = Object.create(store);
  let commitMs = 0;
  let commits = 0;
  timed.putStates = async (t, entries) => {
    const c0 = performance.now();
    await store.putStates!(t, entries);
    commitMs += performance.now() - c0;
    commits++;
  };
  for (let i = 0; i < 3; i++) {
    const id = i === 0 ? runId : `${runId}-rep${i}`;
    commitMs = 0;
    commits = 0;
    const t0 = performance.now();
    const r = await new Runner(timed, { demo: model(steps) }).run(benchAgent(steps), { userMessage: "go", runId: id });
    times.push(performance.now() - t0);
    commitTimes.push(commitMs / steps);
    if (r.state !== "completed") throw new Error(`bench run ${r.state}: ${r.error}`);
    if (i === 0) commitsPerStep[`${label}:${steps}`] = commits / steps;
  }
  const elapsed = median(times);
  commitShare[`${label}:${steps}`] = median(commitTimes);
  if (store instanceof NullStore)
    return { store: label, steps, msPerStep: elapsed / steps, bytes: null, resumeMs: null, historyMs: null, checkpoints: null };

  // Resume cost: a run crashed at its last step, loaded back (latest checkpoint + snapshot + logs) and finished.
  const crashId = `${runId}-crash`;
  await new Runner(store, { demo: model(steps) }, { failpoint: { at: "step_started", step: steps, action: "throw" } })
    .run(benchAgent(steps), { userMessage: "go", runId: crashId })
    .catch((e) => {
      if (!(e instanceof FailpointError)) throw e;
    });
  const t1 = performance.now();
  await loadLatestCheckpoint(store, crashId, crashId);
  await loadSnapshot(store, crashId, crashId);
  const resumeMs = performance.now() - t1;
  const resumed = await new Runner(store, { demo: model(steps) }).resume(benchAgent(steps), { runId: crashId, threadId: crashId });
  if (resumed.state !== "completed") throw new Error("resume failed");

  // Median of five listings.
  const listings: number[] = [];
  let cps: Awaited<ReturnType<typeof listCheckpoints>> = [];
  for (let i = 0; i < 5; i++) {
    const t2 = performance.now();
    cps = await listCheckpoints(store, runId, runId);
    listings.push(performance.now() - t2);
  }
  const historyMs = median(listings);
  return { store: label, steps, msPerStep: elapsed / steps, bytes: await bytesOf(runId), resumeMs, historyMs, checkpoints: cps.length };
}

const dbBytes = (db: Db) => async (runId: string) => {
  const rows = await db.stateEntry.findMany({ where: { threadId: runId }, select: { key: true, value: true } });
  return rows.reduce((n, r) => n + Buffer.byteLength(r.key) + Buffer.byteLength(r.value), 0);
};

// Resume of a long run to its first new checkpoint: the run crashed at its last step; the clock runs from
// resume() until the store has durably written the first record of the resumed execution. The first two
// resumes of the process are reported apart (they also pay for compiling the resume path), then the
// median of five.
async function resumeToFirstCheckpoint(store: MemoryStore, steps: number): Promise<{ cold: number[]; median: number }> {
  const cold = [await resumeOnce(store, steps, 0), await resumeOnce(store, steps, 1)];
  const times: number[] = [];
  for (let i = 2; i < 7; i++) times.push(await resumeOnce(store, steps, i));
  return { cold, median: median(times) };
}

async function resumeOnce(store: MemoryStore, steps: number, i: number): Promise<number> {
  const runId = `bench-resume-${steps}-${Date.now()}-${i}`;
  await new Runner(store, { demo: model(steps) }, { failpoint: { at: "step_started", step: steps, action: "throw" } })
    .run(benchAgent(steps), { userMessage: "go", runId })
    .catch((e) => {
      if (!(e instanceof FailpointError)) throw e;
    });
  let firstWrite = 0;
  const watched: MemoryStore = Object.create(store);
  watched.putStates = async (t, entries) => {
    await store.putStates!(t, entries);
    firstWrite ||= performance.now();
  };
  watched.putState = async (t, k, v) => {
    await store.putState(t, k, v);
    firstWrite ||= performance.now();
  };
  const t0 = performance.now();
  const r = await new Runner(watched, { demo: model(steps) }).resume(benchAgent(steps), { runId, threadId: runId });
  if (r.state !== "completed") throw new Error(`resume ended ${r.state}`);
  return firstWrite - t0;
}

// Where the time of a write goes: the same statements through Prisma and straight through the driver.
async function prismaVsDriver(
  db: Db,
): Promise<{ prismaBatchMs: number; driverBatchMs: number; prismaReadMs: number; driverReadMs: number }> {
  const prisma = new PrismaStore(db);
  if (!driverOf(db)) throw new Error("no driver");
  const batch = (i: number) =>
    Array.from({ length: 6 }, (_, k) => ({
      key: keys.checkpoint("pvd", i + 2, k, "pre_llm"),
      value: { i, k, pad: "x".repeat(300) },
    }));
  const time = async (n: number, f: (i: number) => Promise<unknown>) => {
    await f(-1);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await f(i);
    return (performance.now() - t0) / n;
  };
  // The Prisma path: the same store on a client without a driver (as a transaction client is).
  const viaPrisma = new PrismaStore(new Proxy(db, {}));
  const prismaBatchMs = await time(300, (i) => viaPrisma.putStates("pvd", batch(i)));
  const driverBatchMs = await time(300, (i) => prisma.putStates("pvd", batch(1000 + i)));
  const prismaReadMs = await time(300, () => viaPrisma.getState("pvd", keys.checkpoint("pvd", 1, 1, "pre_llm")));
  const driverReadMs = await time(300, () => prisma.getState("pvd", keys.checkpoint("pvd", 1, 1, "pre_llm")));
  return { prismaBatchMs, driverBatchMs, prismaReadMs, driverReadMs };
}

type Target = { what: string; value: number; target: number; unit: string };
const verdict = (t: Target) =>
  `${t.what.padEnd(46)} ${t.value.toFixed(t.unit === "MB" ? 2 : 2).padStart(8)} ${t.unit.padEnd(8)} target ≤ ${t.target} ${t.unit}: ${t.value <= t.target ? "met" : "NOT met"}`;

async function main() {
  const rows: Row[] = [];
  const sizes = [10, 50, 200];
  for (const n of sizes) rows.push(await measure("none", new NullStore(), n, async () => null));
  for (const n of sizes) {
    const mem = new InMemoryStore();
    rows.push(
      await measure("memory", mem, n, async (id) =>
        (await mem.listState(id, "")).reduce((s, e) => s + e.key.length + JSON.stringify(e.value).length, 0),
      ),
    );
  }
  const resume: Record<string, { cold: number[]; median: number }> = {};
  const pvd: Record<string, Awaited<ReturnType<typeof prismaVsDriver>>> = {};
  const sq = await scratchDatabase("sqlite", undefined, "afk_bench");
  for (const n of sizes) rows.push(await measure("sqlite", new PrismaStore(sq.db), n, dbBytes(sq.db)));
  resume.sqlite = await resumeToFirstCheckpoint(new PrismaStore(sq.db), 1000);
  pvd.sqlite = await prismaVsDriver(sq.db);
  await sq.drop();
  const pgUrl = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
  let fsync = "";
  if (pgUrl) {
    const p = await scratchDatabase("postgresql", pgUrl, "afk_bench");
    // Read, not assumed: the test suite's throwaway cluster runs with fsync off (.ci/pg-start.sh).
    fsync = ((await p.db.$queryRaw<{ fsync: string }[]>`SHOW fsync`)[0]?.fsync ?? "?").toLowerCase();
    if (fsync !== "on")
      console.log(`(PostgreSQL has fsync ${fsync}: its commits are not durable; start one with PG_FSYNC=on bash .ci/pg-start.sh)`);
    for (const n of sizes) rows.push(await measure("postgresql", new PrismaStore(p.db), n, dbBytes(p.db)));
    resume.postgresql = await resumeToFirstCheckpoint(new PrismaStore(p.db), 1000);
    pvd.postgresql = await prismaVsDriver(p.db);
    await p.drop();
  } else console.log("(PostgreSQL skipped: set BENCH_POSTGRES_URL or TEST_POSTGRES_URL)");

  const fmt = (v: number | null, d = 2) => (v === null ? "-" : v.toFixed(d));
  const none200 = rows.find((r) => r.store === "none" && r.steps === 200)!;
  console.log("\nstore       steps  ms/step  × no store   bytes stored   checkpoints  reload ms  history ms");
  for (const r of rows) {
    const ratio = r.store === "none" ? "-" : `${(r.msPerStep / none200.msPerStep).toFixed(1)}×`;
    console.log(
      `${r.store.padEnd(11)} ${String(r.steps).padStart(5)}  ${fmt(r.msPerStep, 3).padStart(7)}  ${ratio.padStart(10)}   ${(r.bytes === null ? "-" : `${(r.bytes / 1024).toFixed(1)} KB`).padStart(12)}   ${String(r.checkpoints ?? "-").padStart(10)}  ${fmt(r.resumeMs).padStart(9)}  ${fmt(r.historyMs).padStart(10)}`,
    );
  }
  console.log("\nPrisma vs driver, per statement (ms): batch upsert of 6 records / point read");
  for (const [k, v] of Object.entries(pvd))
    console.log(
      `${k.padEnd(11)} Prisma ${v.prismaBatchMs.toFixed(3)} / ${v.prismaReadMs.toFixed(3)}   driver ${v.driverBatchMs.toFixed(3)} / ${v.driverReadMs.toFixed(3)}`,
    );
  const at = (store: string) => rows.find((r) => r.store === store && r.steps === 200);
  const targets: Target[] = [];
  const s200 = at("sqlite")!;
  targets.push({ what: "SQLite, per step at 200 steps", value: s200.msPerStep, target: 0.8, unit: "ms" });
  const p200 = at("postgresql");
  if (p200) targets.push({ what: `PostgreSQL (fsync ${fsync}), per step at 200 steps`, value: p200.msPerStep, target: 1.5, unit: "ms" });
  targets.push({ what: "stored at 200 steps (SQLite)", value: s200.bytes! / 1048576, target: 0.35, unit: "MB" });
  if (p200) targets.push({ what: "stored at 200 steps (PostgreSQL)", value: p200.bytes! / 1048576, target: 0.35, unit: "MB" });
  targets.push({ what: "full history at 200 steps (SQLite)", value: s200.historyMs!, target: 10, unit: "ms" });
  if (p200) targets.push({ what: "full history at 200 steps (PostgreSQL)", value: p200.historyMs!, target: 10, unit: "ms" });
  for (const [k, v] of Object.entries(resume))
    targets.push({ what: `resume 1,000-step run to first new record (${k})`, value: v.median, target: 10, unit: "ms" });
  console.log("\ncommits at 200 steps: per step, and ms per step the run waited on them (the floor for that store)");
  for (const s of ["sqlite", "postgresql"])
    if (commitShare[`${s}:200`] !== undefined)
      console.log(
        `${s.padEnd(11)} ${commitsPerStep[`${s}:200`].toFixed(2)} commits/step   ${commitShare[`${s}:200`].toFixed(3)} ms/step waiting on them`,
      );
  console.log(`\ntargets (no store: ${none200.msPerStep.toFixed(3)} ms/step)`);
  for (const t of targets) console.log(verdict(t));
  for (const [k, v] of Object.entries(resume))
    console.log(
      `  (${k}: a process's first two resumes took ${v.cold.map((x) => x.toFixed(1)).join(" and ")} ms; the figure is the median of the next five)`,
    );
  await benchTraces(pgUrl);
  if (pgUrl && !process.argv.includes("--runner")) await benchWorkers(pgUrl);
}

// BENCH_AGAINST=<dir>: the runner's rows of this checkout and of <dir> (a worktree of the code before a
// change) instead, interleaved in one process (bench-runner-side.ts), BENCH_TURNS repetitions (default 5).
async function benchAgainst(dir: string) {
  const pgUrl = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
  const rows = await runnerAgainst(dir, Number(process.env.BENCH_TURNS ?? 5), pgUrl);
  console.log(`\nthis checkout against ${path.resolve(dir)}: medians, and this / that`);
  console.log(`${"measure".padEnd(44)} ${"this".padStart(10)} ${"against".padStart(10)}  ratio`);
  for (const r of rows) {
    const f = (v: number) => `${v.toFixed(3)} ${r.unit}`;
    console.log(`${r.measure.padEnd(44)} ${f(r.this).padStart(10)} ${f(r.against).padStart(10)}  ${(r.this / r.against).toFixed(2)}`);
  }
}

process.env.LOG_LEVEL ??= "warn";
(process.env.BENCH_AGAINST ? benchAgainst(process.env.BENCH_AGAINST) : main()).then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
