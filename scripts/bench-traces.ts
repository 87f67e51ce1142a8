// Tracing overhead (part of `npm run bench`, or alone: tsx scripts/bench-traces.ts): ms per step of a
// 200-step run (one model call and one tool call per step) through the real execution path — the start
// service, the dispatch path, the worker, the runner, the store — with tracing off and with an OTLP
// exporter sending to a receiver in this process (every span of it: invoke_agent, chat, execute_tool and
// the database spans, lib/db/tracing.ts). Each side runs in child processes of its own (the SDK is per
// process), taken in turns so that neither gets the machine's quieter moments; a child warms up (the JIT
// is still compiling during the first runs), then times five runs. CPU time is the figure to read on a
// shared machine: wall time counts other processes' load too.
import { spawn } from "node:child_process";
import { z } from "zod";
import { createContext } from "../lib/context.ts";
import { getRunRow } from "../lib/db/runs.ts";
import { env } from "../lib/env.ts";
import { startRun } from "../lib/services/start.ts";
import { type Agent, DemoModel, defineTool } from "../lib/runner/index.ts";
import { flushTracing, startTracing, stopTracing, tracingOn } from "../lib/telemetry/sdk.ts";
import { otlpReceiver } from "../tests/helpers/otlp-receiver.ts";
import { scratchDatabase } from "../tests/helpers/scratch.ts";

const STEPS = 200;
const RUNS = 5;
const ROUNDS = Number(process.env.BENCH_TRACE_ROUNDS ?? 4);
const WARMUP = 3;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
const median = (xs: number[]) => quantile(xs, 0.5);
// Median and the middle half's range (25th to 75th percentile) of a side's runs.
const spread = (xs: number[]) => `${median(xs).toFixed(3)} (${quantile(xs, 0.25).toFixed(2)}–${quantile(xs, 0.75).toFixed(2)})`;

const tick = defineTool({
  name: "tick",
  description: "count",
  schema: z.object({ n: z.number().int() }),
  async execute({ n }) {
    return { n, ok: true };
  },
});
const agent: Agent = {
  name: "bench-traced",
  model: "demo:bench",
  instructions: "Count.",
  tools: [tick],
  inputSchema: z.object({}),
  toUserMessage: () => "go",
  failSafe: { maxSteps: STEPS + 5, maxLlmCalls: STEPS + 5, maxToolCalls: STEPS + 5 },
};
const model = () =>
  new DemoModel({
    bench: (messages) => {
      const turn = messages.filter((m) => m.role === "assistant").length + 1;
      return turn <= STEPS ? { text: `step ${turn}`, toolCalls: [{ id: `t${turn}`, name: "tick", args: { n: turn } }] } : { text: "done" };
    },
  });

type Times = { wall: number[]; cpu: number[] };

// One side, in this (child) process: per timed run, wall-clock ms per step and this process's CPU ms per
// step (user + system: the exporter's serialization and sending included, other processes' load not).
async function child(provider: "sqlite" | "postgresql"): Promise<Times> {
  await startTracing("afk-bench", env());
  const s = await scratchDatabase(provider, process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL, "afk_bench");
  try {
    const ctx = createContext(s.db, { agents: { [agent.name]: agent }, models: { demo: model() } });
    const sub = { id: "bench-sub", email: "sub@example.com", name: "S", role: "submitter" as const };
    const times: Times = { wall: [], cpu: [] };
    const once = async () => {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const run = await startRun(ctx, sub, { body: { agent: agent.name, input: {} } });
      await ctx.worker.idle();
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      const row = await getRunRow(s.db, run.id);
      if (row?.state !== "completed") throw new Error(`bench run ${row?.state}`);
      return { wall: ms / STEPS, cpu: (c.user + c.system) / 1000 / STEPS };
    };
    for (let i = 0; i < WARMUP; i++) await once();
    for (let i = 0; i < RUNS; i++) {
      const t = await once();
      times.wall.push(t.wall);
      times.cpu.push(t.cpu);
    }
    await flushTracing();
    return times;
  } finally {
    await stopTracing();
    await s.drop();
  }
}

function side(provider: string, endpoint: string | null): Promise<Times> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/bench-traces.ts", "child", provider], {
      env: {
        ...process.env,
        LOG_LEVEL: "error",
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint ?? "",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    p.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    p.on("exit", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0) reject(new Error(`bench-traces child exited ${code}: ${out}`));
      else resolve(JSON.parse(line) as Times);
    });
  });
}

export async function benchTraces(pgUrl: string | undefined) {
  const receiver = await otlpReceiver();
  console.log(`\ntracing overhead per step of a ${STEPS}-step run through the worker (${ROUNDS}×${RUNS} runs a side; target ≤ 10 %)`);
  console.log("median (25th–75th percentile) ms per step");
  console.log("database     measure          no exporter            OTLP exporter            added   spans/step");
  try {
    for (const provider of pgUrl ? ["sqlite", "postgresql"] : ["sqlite"]) {
      const off: Times = { wall: [], cpu: [] };
      const on: Times = { wall: [], cpu: [] };
      const before = receiver.spans.length;
      for (let i = 0; i < ROUNDS; i++) {
        const [a, b] = [await side(provider, null), await side(provider, receiver.url)];
        off.wall.push(...a.wall);
        off.cpu.push(...a.cpu);
        on.wall.push(...b.wall);
        on.cpu.push(...b.cpu);
      }
      const spansPerStep = (receiver.spans.length - before) / (ROUNDS * (RUNS + WARMUP) * STEPS);
      for (const m of ["cpu", "wall"] as const) {
        const [a, b] = [median(off[m]), median(on[m])];
        console.log(
          `${provider.padEnd(12)} ${(m === "wall" ? "wall" : "process CPU").padEnd(14)} ${spread(off[m]).padStart(22)}   ${spread(on[m]).padStart(22)}   ${`${(((b - a) / a) * 100).toFixed(1)} %`.padStart(7)}   ${spansPerStep.toFixed(1).padStart(10)}`,
        );
      }
    }
  } finally {
    await receiver.close();
  }
}

if (process.argv[2] === "child") {
  // The parent gives an empty endpoint for the side without one; the environment schema wants it absent.
  for (const k of ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]) if (process.env[k] === "") delete process.env[k];
  child(process.argv[3] as "sqlite" | "postgresql").then(
    (times) => {
      if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !tracingOn()) throw new Error("tracing did not start");
      console.log(JSON.stringify(times));
      process.exit(0);
    },
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
