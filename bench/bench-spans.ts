// The floor of tracing a step, without the runner (tsx --conditions=react-server bench/bench-spans.ts):
// CPU µs per step of a loop that does what a traced runner step does with tracing, and nothing else — a
// model call and a tool call, each an awaited async function that returns at once — inside a segment's
// context, 200 steps a batch, the batch's spans flushed inside its timed window (as bench-traces does).
// Each variant is a child process of its own (the SDK and the context manager are per process), run one
// after the other; BENCH_SPANS_BATCHES measured batches each (default 40), after 10 to warm up;
// BENCH_SPANS_ONLY=plain,console runs those variants only:
//   plain       the loop, untraced (no SDK, no AsyncLocalStorage)
//   context     the SDK's context manager only (Node 20: its promise hooks), the loop inside context.with
//   sdk         + two spans a step from the SDK's tracer (explicit parent, not made active), ended into a
//               batch processor whose exporter drops them: span creation, attributes, end, the processor
//   sdk-otlp    the same, exported as OTLP/JSON to a receiver in the parent process
//   console     the console's own wrappers (lib/telemetry/genai.ts: chat, and execute_tool made active)
//               and the OTLP exporter, as lib/telemetry/sdk.ts starts it: what tracing adds to a step
//               without the runner's statements
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { type Context, context, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { env } from "../lib/env.ts";
import type { ModelAdapter, Tool } from "../lib/runner/index.ts";
import { traceAgent, traceModels } from "../lib/telemetry/genai.ts";
import { flushTracing, startTracing, tracer } from "../lib/telemetry/sdk.ts";
import { otlpReceiver } from "../tests/helpers/otlp-receiver.ts";
import { countingAgent, tick } from "./bench-agent.ts";

const STEPS = 200;
const WARMUP = 10;
const BATCHES = Number(process.env.BENCH_SPANS_BATCHES ?? 40);
const VARIANTS = ["plain", "context", "sdk", "sdk-otlp", "console"] as const;
type Variant = (typeof VARIANTS)[number];

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

// A model that answers at once with what a traced call records (usage, finish reason).
const model: ModelAdapter = {
  provider: "bench",
  generate: async () => ({
    text: "",
    tool_calls: [],
    finish_reason: "tool_calls",
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    session_token: null,
    checkpoint_token: null,
    structured: null,
  }),
};
const toolCtx = (n: number) =>
  ({ toolCallId: `t${n}`, runId: "r", threadId: "th", agentName: "bench" }) as unknown as Parameters<Tool["execute"]>[1];

async function child(variant: Variant) {
  let segment: Context = ROOT_CONTEXT;
  let step: (n: number) => Promise<unknown>;
  const plain = async (n: number) => {
    await model.generate({ model: "bench", messages: [] } as unknown as Parameters<ModelAdapter["generate"]>[0]);
    return tick.execute({ n }, toolCtx(n));
  };
  if (variant === "plain") step = plain;
  else if (variant === "console") {
    await startTracing("afk-bench", env());
    const models = traceModels({ bench: model });
    const [tool] = traceAgent(countingAgent("bench", STEPS)).tools;
    step = async (n) => {
      await models.bench.generate({ model: "bench", messages: [] } as unknown as Parameters<ModelAdapter["generate"]>[0]);
      return tool.execute({ n }, toolCtx(n));
    };
  } else {
    const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }] = await Promise.all([
      import("@opentelemetry/sdk-trace-node"),
      import("@opentelemetry/sdk-trace-base"),
      import("@opentelemetry/exporter-trace-otlp-http"),
    ]);
    const exporter =
      variant === "sdk-otlp"
        ? new OTLPTraceExporter({ url: `${process.env.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces` })
        : { export: (_: unknown, done: (r: { code: 0 }) => void) => done({ code: 0 }), shutdown: async () => {} };
    const provider = new NodeTracerProvider({ spanProcessors: variant === "context" ? [] : [new BatchSpanProcessor(exporter)] });
    provider.register();
    const t = provider.getTracer("bench");
    if (variant === "context") step = plain;
    else
      step = async (n) => {
        const parent = context.active();
        const chat = t.startSpan(
          "chat bench",
          {
            kind: SpanKind.CLIENT,
            attributes: { "gen_ai.operation.name": "chat", "gen_ai.provider.name": "bench", "gen_ai.request.model": "bench" },
          },
          parent,
        );
        const r = await model.generate({ model: "bench", messages: [] } as unknown as Parameters<ModelAdapter["generate"]>[0]);
        chat.setAttributes({
          "gen_ai.response.model": "bench",
          "gen_ai.response.finish_reasons": [r.finish_reason],
          "gen_ai.usage.input_tokens": r.usage.input_tokens,
          "gen_ai.usage.output_tokens": r.usage.output_tokens,
        });
        chat.end();
        const tool = t.startSpan(
          "execute_tool tick",
          {
            attributes: {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": "tick",
              "gen_ai.tool.call.id": `t${n}`,
              "gen_ai.tool.type": "function",
            },
          },
          parent,
        );
        const out = await tick.execute({ n }, toolCtx(n));
        tool.end();
        return out;
      };
    segment =
      variant === "context" ? ROOT_CONTEXT.setValue(Symbol("segment"), 1) : trace.setSpan(ROOT_CONTEXT, t.startSpan("invoke_agent bench"));
    flush = () => provider.forceFlush();
  }
  if (variant === "console") {
    segment = trace.setSpan(ROOT_CONTEXT, tracer().startSpan("invoke_agent bench"));
    flush = flushTracing;
  }
  const batch = async () => {
    for (let n = 0; n < STEPS; n++) await step(n);
    await flush();
  };
  const once = async () => {
    const c0 = process.cpuUsage();
    await (variant === "plain" ? batch() : context.with(segment, batch));
    const c = process.cpuUsage(c0);
    return ((c.user + c.system) / STEPS).toFixed(2);
  };
  for (let i = 0; i < WARMUP; i++) await once();
  for (let i = 0; i < BATCHES; i++) console.log(await once());
}
let flush: () => Promise<void> = async () => {};

async function main() {
  const receiver = await otlpReceiver();
  console.log(`µs of CPU per step (${STEPS} steps a batch, ${BATCHES} batches a variant): median (25th–75th percentile), added to plain`);
  let base = 0;
  try {
    for (const v of (process.env.BENCH_SPANS_ONLY?.split(",") as Variant[] | undefined) ?? VARIANTS) {
      const p = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "bench/bench-spans.ts", "child", v], {
        env: { ...process.env, LOG_LEVEL: "error", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
        stdio: ["ignore", "pipe", "inherit"],
      });
      const xs: number[] = [];
      for await (const line of createInterface({ input: p.stdout! })) xs.push(Number(line));
      const m = quantile(xs, 0.5);
      if (v === "plain") base = m;
      console.log(
        `${v.padEnd(10)} ${m.toFixed(2).padStart(7)} (${quantile(xs, 0.25).toFixed(2)}–${quantile(xs, 0.75).toFixed(2)})   ${v === "plain" ? "" : `+${(m - base).toFixed(2)}`}`,
      );
    }
  } finally {
    await receiver.close();
  }
}

if (process.argv[2] === "child")
  child(process.argv[3] as Variant).then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
else
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
