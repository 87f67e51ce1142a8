// Tracing overhead (part of `npm run bench`, or alone: tsx bench/bench-traces.ts): ms per step of a
// 200-step run (one model call and one tool call per step) through the real execution path — the start
// service, the dispatch path, the worker, the runner, the store — with tracing off and with an OTLP
// exporter sending to a receiver in this process (every span of it: invoke_agent, chat, execute_tool and
// the database spans, lib/db/tracing.ts). Each side is a child process of its own (the SDK is per
// process); both warm up (the JIT is still compiling during the first runs), then take turns run by run,
// BENCH_TRACE_ROUNDS × 5 runs a side. CPU time is the figure to read on a shared machine: wall time counts
// other processes' load too. Twice: as a worker process (scripts/worker.ts: nothing else in it uses
// AsyncLocalStorage, so the SDK's context manager turns on Node's promise hooks for every promise), and with
// an AsyncLocalStorage already in use, as in the web server, where Next.js keeps each request's state in one
// and a run executes embedded.
import { AsyncLocalStorage } from "node:async_hooks";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { createContext } from "../lib/context.ts";
import { getRunRow } from "../lib/db/runs.ts";
import { env } from "../lib/env.ts";
import { startRun } from "../lib/services/start.ts";
import { flushTracing, startTracing, stopTracing, tracingOn } from "../lib/telemetry/sdk.ts";
import { otlpReceiver } from "../tests/helpers/otlp-receiver.ts";
import { scratchDatabase } from "../tests/helpers/scratch.ts";
import { countingModel, tracedAgent } from "./bench-agent.ts";

const STEPS = 200;
const RUNS = 5;
const ROUNDS = Number(process.env.BENCH_TRACE_ROUNDS ?? 4);
const WARMUP = 3;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
const median = (xs: number[]) => quantile(xs, 0.5);
// Median and the middle half's range (25th to 75th percentile) of a side's runs.
const spread = (xs: number[]) => `${median(xs).toFixed(3)} (${quantile(xs, 0.25).toFixed(2)}–${quantile(xs, 0.75).toFixed(2)})`;

const agent = tracedAgent(STEPS);
const model = () => countingModel(STEPS);

type Times = { wall: number[]; cpu: number[] };
type One = { wall: number; cpu: number };

// One side, in this (child) process: it warms up, says "ready", then times one run per line on stdin and
// answers with its wall-clock ms per step and this process's CPU ms per step (user + system). The spans
// of the run are flushed inside the timed window, so the exporter's serialization and sending count.
async function child(provider: "sqlite" | "postgresql") {
  await startTracing("afk-bench", env());
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !tracingOn()) throw new Error("tracing did not start");
  const s = await scratchDatabase(provider, process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL, "afk_bench");
  try {
    const ctx = createContext(s.db, { agents: { [agent.name]: agent }, models: { demo: model() } });
    const sub = { id: "bench-sub", email: "sub@example.com", name: "S", role: "submitter" as const };
    const once = async (): Promise<One> => {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const run = await startRun(ctx, sub, { body: { agent: agent.name, input: {} } });
      await ctx.worker.idle();
      await flushTracing();
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      const row = await getRunRow(s.db, run.id);
      if (row?.state !== "completed") throw new Error(`bench run ${row?.state}`);
      return { wall: ms / STEPS, cpu: (c.user + c.system) / 1000 / STEPS };
    };
    for (let i = 0; i < WARMUP; i++) await once();
    const profiler = await profile();
    console.log("ready");
    for await (const line of createInterface({ input: process.stdin })) {
      if (line !== "run") break;
      console.log(JSON.stringify(await once()));
    }
    await profiler?.();
  } finally {
    await stopTracing();
    await s.drop();
  }
}

// BENCH_PROFILE=<dir>: each child writes a CPU profile of its timed runs there (not of its start-up and
// warm-up), sampled every 100 µs, named by its side: <database>-<process>-<off|on>.cpuprofile (the second
// side of an A/A or A/B run: off2, on2).
async function profile(): Promise<(() => Promise<void>) | null> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return null;
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  const name = `${process.argv[3]}-${process.env.BENCH_TRACE_ALS ? "web" : "worker"}-${process.env.BENCH_TRACE_SIDE}`;
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

// A child process of one side, driven a run at a time; name is the side's (profiles), b the A/B run's second
// side: started from BENCH_TRACE_B_CWD (another checkout) with BENCH_TRACE_B_ENV's variables when given.
function side(provider: string, endpoint: string | null, als: boolean, name: string, b = false) {
  const p = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "bench/bench-traces.ts", "child", provider], {
    cwd: (b && process.env.BENCH_TRACE_B_CWD) || undefined,
    env: {
      ...process.env,
      ...(b
        ? Object.fromEntries(
            (process.env.BENCH_TRACE_B_ENV ?? "")
              .split(/\s+/)
              .filter(Boolean)
              .map((kv) => kv.split("=", 2)),
          )
        : {}),
      BENCH_TRACE_ALS: als ? "1" : "",
      BENCH_TRACE_SIDE: name,
      LOG_LEVEL: "error",
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint ?? "",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: p.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await lines.next();
    if (r.done) throw new Error(`bench-traces child (${endpoint ? "exporter" : "no exporter"}) exited`);
    return r.value;
  };
  return {
    ready: next,
    run: async (): Promise<One> => {
      p.stdin!.write("run\n");
      return JSON.parse(await next()) as One;
    },
    stop: async () => {
      if (p.exitCode !== null) return;
      const exited = new Promise((r) => p.once("exit", r));
      p.stdin!.end("stop\n");
      await exited;
    },
  };
}

// Both sides' processes live together and take turns run by run, so that a change of the machine's load
// (it is shared) falls on both; each run's CPU time is its own process's.
export async function benchTraces(pgUrl: string | undefined) {
  const receiver = await otlpReceiver();
  console.log(
    `\ntracing overhead per step of a ${STEPS}-step run through the worker (${ROUNDS * RUNS} runs a side, in turns; target ≤ 10 %)`,
  );
  const [aa, ab] = [!!process.env.BENCH_TRACE_AA, !!process.env.BENCH_TRACE_AB];
  if (aa || ab) console.log(aa ? "A/A: both sides without an exporter" : "A/B: both sides with the exporter, the second changed");
  console.log("median (25th–75th percentile) ms per step");
  console.log("database     process          measure          no exporter            OTLP exporter            added   spans/step");
  try {
    // BENCH_TRACE_PROCESS=worker or web: that row only.
    for (const provider of pgUrl ? ["sqlite", "postgresql"] : ["sqlite"])
      for (const als of [false, true].filter(
        (a) => !process.env.BENCH_TRACE_PROCESS || process.env.BENCH_TRACE_PROCESS === (a ? "web" : "worker"),
      )) {
        const off: Times = { wall: [], cpu: [] };
        const on: Times = { wall: [], cpu: [] };
        // BENCH_TRACE_AA=1: both sides without an exporter, to see how far two equal sides differ here.
        // BENCH_TRACE_AB=1: both with the exporter, the second side changed (side() above): what a change
        // does, in the same turns.
        const [a, b] = ab
          ? [side(provider, receiver.url, als, "on"), side(provider, receiver.url, als, "on2", true)]
          : [side(provider, null, als, "off"), side(provider, aa ? null : receiver.url, als, aa ? "off2" : "on")];
        try {
          await Promise.all([a.ready(), b.ready()]);
          const before = receiver.spans.length;
          for (let i = 0; i < ROUNDS * RUNS; i++)
            for (const [p, t] of i % 2
              ? ([
                  [b, on],
                  [a, off],
                ] as const)
              : ([
                  [a, off],
                  [b, on],
                ] as const)) {
              const r = await p.run();
              t.wall.push(r.wall);
              t.cpu.push(r.cpu);
            }
          const spansPerStep = (receiver.spans.length - before) / (ROUNDS * RUNS * STEPS);
          for (const m of ["cpu", "wall"] as const) {
            const [x, y] = [median(off[m]), median(on[m])];
            console.log(
              `${provider.padEnd(12)} ${(als ? "web (ALS on)" : "worker").padEnd(16)} ${(m === "wall" ? "wall" : "process CPU").padEnd(14)} ${spread(off[m]).padStart(22)}   ${spread(on[m]).padStart(22)}   ${`${(((y - x) / x) * 100).toFixed(1)} %`.padStart(7)}   ${spansPerStep.toFixed(1).padStart(10)}`,
            );
          }
        } finally {
          await Promise.all([a.stop(), b.stop()]);
        }
      }
  } finally {
    await receiver.close();
  }
}

if (process.argv[2] === "child") {
  // The parent gives an empty endpoint for the side without one; the environment schema wants it absent.
  for (const k of ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]) if (process.env[k] === "") delete process.env[k];
  const go = () => child(process.argv[3] as "sqlite" | "postgresql");
  (process.env.BENCH_TRACE_ALS ? new AsyncLocalStorage<object>().run({}, go) : go()).then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
} else if (import.meta.url === `file://${process.argv[1]}`) {
  process.env.LOG_LEVEL ??= "warn";
  benchTraces(process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL).then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
