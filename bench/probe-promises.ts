// Promises a step of bench-traces' run (bench/bench-traces.ts: 200 steps, one model call and one tool call
// a step, through the start service, the dispatch path, the worker and the store), counted by where they are
// made: an async_hooks init hook of type PROMISE with the stack at creation, after 3 warm-up runs, over
// PROBE_RUNS runs (default 5). The hook itself turns on Node's promise hooks, so the count includes the
// throwaway promise of each await, as with tracing on (Node 20). Run: node --conditions=react-server
// --import tsx bench/probe-promises.ts. PROBE_DB=postgresql (BENCH_POSTGRES_URL), PROBE_TRACE=1 (an OTLP
// exporter to an in-process receiver), PROBE_ALS=1 (inside an AsyncLocalStorage, as the web server),
// PROBE_GROUP=1 (by the first frame of ours and the innermost package), else the first PROBE_DEPTH frames.
import { AsyncLocalStorage, createHook } from "node:async_hooks";
import { createContext } from "../lib/context.ts";
import { getRunRow } from "../lib/db/runs.ts";
import { env } from "../lib/env.ts";
import { startRun } from "../lib/services/start.ts";
import { flushTracing, startTracing, stopTracing } from "../lib/telemetry/sdk.ts";
import { otlpReceiver } from "../tests/helpers/otlp-receiver.ts";
import { scratchDatabase } from "../tests/helpers/scratch.ts";
import { countingModel, tracedAgent } from "./bench-agent.ts";

const STEPS = 200;
const agent = tracedAgent(STEPS);
const model = () => countingModel(STEPS);

const root = process.cwd();
const counts = new Map<string, number>();
let on = false;
let total = 0;
const DEPTH = Number(process.env.PROBE_DEPTH ?? 3);
function where(): string {
  const o: { stack?: string } = {};
  const lim = Error.stackTraceLimit;
  Error.stackTraceLimit = 30;
  Error.captureStackTrace(o, where);
  Error.stackTraceLimit = lim;
  const frames = (o.stack ?? "")
    .split("\n")
    .slice(1)
    .map((l) => l.trim().replace(/^at /, ""));
  const ours = frames.filter((f) => !f.includes("node:internal") && !f.includes("probe-promises") && !f.includes("async_hooks"));
  const short = ours.map((f) =>
    f
      .replace(`file://${root}/`, "")
      .replace(`${root}/`, "")
      .replace(/node_modules\/.*node_modules\//, "nm/")
      .replace(/node_modules\//, "nm/"),
  );
  if (process.env.PROBE_GROUP) {
    const mine = short.find((f) => /\((lib|scripts)\//.test(f) || /^(lib|scripts)\//.test(f)) ?? "(none)";
    const inner = short[0] ?? "(internal)";
    const pkg = /nm\/(@[^/]+\/[^/]+|[^/]+)/.exec(inner)?.[1];
    return `${mine.replace(/:\d+\)$/, ")")}${pkg ? ` [${pkg}]` : ""}`;
  }
  return short.slice(0, DEPTH).join(" < ") || "(internal)";
}
createHook({
  init(_id, type) {
    if (type === "PROMISE" && on) {
      total++;
      const w = where();
      counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  },
}).enable();

async function main() {
  const receiver = process.env.PROBE_TRACE ? await otlpReceiver() : null;
  if (receiver) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  await startTracing("afk-bench", env());
  const s = await scratchDatabase(
    (process.env.PROBE_DB as "sqlite") ?? "sqlite",
    process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL,
    "afk_probe",
  );
  try {
    const ctx = createContext(s.db, { agents: { [agent.name]: agent }, models: { demo: model() } });
    const sub = { id: "bench-sub", email: "sub@example.com", name: "S", role: "submitter" as const };
    const once = async () => {
      const run = await startRun(ctx, sub, { body: { agent: agent.name, input: {} } });
      await ctx.worker.idle();
      await flushTracing();
      const row = await getRunRow(s.db, run.id);
      if (row?.state !== "completed") throw new Error(`bench run ${row?.state}`);
    };
    for (let i = 0; i < 3; i++) await once();
    on = true;
    const N = Number(process.env.PROBE_RUNS ?? 5);
    for (let i = 0; i < N; i++) await once();
    on = false;
    const steps = N * STEPS;
    console.log(`promises per step: ${(total / steps).toFixed(2)}`);
    for (const [w, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.PROBE_TOP ?? 60)))
      console.log(`${(n / steps).toFixed(3).padStart(8)}  ${w}`);
  } finally {
    await stopTracing();
    await s.drop();
    await receiver?.close();
  }
}
(process.env.PROBE_ALS ? new AsyncLocalStorage<object>().run({}, main) : main()).then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
