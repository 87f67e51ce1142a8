// Spans the collector did not take leave a log line (lib/telemetry/export-health.ts): the SDK drops them
// silently otherwise. Through the real exporter: a collector that is not listening, then one that is (a
// real OTLP/HTTP receiver on the same port); and the rate limit of the lines, on a clock of the test's.
import { createServer } from "node:net";
import { DiagLogLevel, diag, trace } from "@opentelemetry/api";
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { resetEnv } from "@/lib/env";
import { ExportFailures, queueDrops } from "@/lib/telemetry/export-health";
import { flushTracing, startTracing, stopTracing, TRACER_NAME } from "@/lib/telemetry/sdk";
import { type OtlpReceiver, otlpReceiver } from "../helpers/otlp-receiver";

type Line = { level: string; msg: string; dropped?: number; endpoint?: string; error?: string };

// The log's lines (lib/log.ts writes warn and error to stderr, the rest to stdout), at info level.
function logLines() {
  const lines: Line[] = [];
  const take = (s: unknown) => {
    try {
      lines.push(JSON.parse(String(s)) as Line);
    } catch {
      // not a log line
    }
  };
  vi.spyOn(console, "error").mockImplementation(take);
  vi.spyOn(console, "log").mockImplementation(take);
  return lines;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

beforeAll(() => {
  process.env.LOG_LEVEL = "info";
  resetEnv();
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("ExportFailures", () => {
  it("logs the first failure of a burst at once, then at most a line a minute, and the burst's total when exports work again", () => {
    let now = 1_000_000;
    const lines = logLines();
    const f = new ExportFailures("http://collector:4318", 60_000, () => now);
    f.dropped(3, "connect ECONNREFUSED 10.0.0.1:4318");
    now += 1000;
    f.dropped(2, "connect ECONNREFUSED 10.0.0.1:4318");
    now += 30_000;
    f.dropped(4, "connect ECONNREFUSED 10.0.0.1:4318");
    expect(lines).toEqual([
      expect.objectContaining({ level: "warn", msg: "trace export failed; spans dropped", dropped: 3, endpoint: "http://collector:4318" }),
    ]);
    expect(lines[0].error).toContain("ECONNREFUSED");
    now += 30_000; // a minute after the first line: the spans dropped since it
    f.dropped(1, "timeout");
    expect(lines.slice(1)).toEqual([expect.objectContaining({ level: "warn", dropped: 7, error: "timeout" })]);
    f.exported();
    f.exported();
    expect(lines.slice(2)).toEqual([expect.objectContaining({ level: "info", msg: "trace export recovered", dropped: 10 })]);
    // A new burst logs at once again.
    now += 1000;
    f.dropped(5, "timeout");
    expect(lines.slice(3)).toEqual([expect.objectContaining({ level: "warn", dropped: 5 })]);
  });

  it("counts the spans the batch processor drops when its queue is full (it says so only to the diagnostic logger)", async () => {
    const lines = logLines();
    diag.setLogger(queueDrops(new ExportFailures("http://collector:4318")), DiagLogLevel.WARN);
    // A collector that answers only when told to: the queue (two spans) fills while a batch is on its way.
    const answers: (() => void)[] = [];
    const slow: SpanExporter = {
      export: (_spans, done) => answers.push(() => done({ code: 0 })),
      shutdown: () => Promise.resolve(),
    };
    const bsp = new BatchSpanProcessor(slow, { maxQueueSize: 2, maxExportBatchSize: 2, scheduledDelayMillis: 60_000 });
    const t = new BasicTracerProvider({ spanProcessors: [bsp] }).getTracer("test");
    const spans = (n: number) => {
      for (let i = 0; i < n; i++) t.startSpan("s").end();
    };
    spans(2); // a batch on its way
    spans(2); // the queue full
    spans(3); // dropped
    expect(lines).toEqual([]);
    answers.shift()?.(); // the batch arrives; the queue's two go
    await new Promise((r) => setImmediate(r));
    spans(1); // the processor counts its drops when the next span fits
    expect(lines).toEqual([
      expect.objectContaining({
        level: "warn",
        msg: "trace export failed; spans dropped",
        dropped: 3,
        error: expect.stringMatching(/queue was full/),
      }),
    ]);
    diag.disable();
  });
});

describe("an unreachable collector", () => {
  let receiver: OtlpReceiver | undefined;
  afterAll(async () => {
    await stopTracing();
    await receiver?.close();
  });

  it("leaves one warning with the spans dropped, and a line when the collector takes spans again", async () => {
    const port = await freePort();
    // The exporter retries a refused connection within its timeout: a short one, so that a flush fails fast.
    process.env.OTEL_EXPORTER_OTLP_TIMEOUT = "300";
    expect(
      await startTracing("afk-export-test", {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/`,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
        OTEL_SERVICE_NAME: undefined,
        OTEL_SDK_DISABLED: "false",
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "false",
      }),
    ).toBe(true);
    const lines = logLines();
    const spans = (n: number) => {
      for (let i = 0; i < n; i++) trace.getTracer(TRACER_NAME).startSpan(`span ${i}`).end();
    };
    spans(3);
    await expect(flushTracing()).rejects.toThrow();
    spans(2);
    await expect(flushTracing()).rejects.toThrow();
    const failed = lines.filter((l) => l.msg === "trace export failed; spans dropped");
    expect(failed).toEqual([expect.objectContaining({ level: "warn", dropped: 3, endpoint: `http://127.0.0.1:${port}` })]);

    // The collector is there now: the next batch arrives, and the log says what the burst dropped.
    receiver = await otlpReceiver(port);
    spans(1);
    await flushTracing();
    expect(receiver.spans.map((s) => s.name)).toEqual(["span 0"]);
    expect(lines.filter((l) => l.msg !== "trace export failed; spans dropped")).toEqual([
      expect.objectContaining({ level: "info", msg: "trace export recovered", dropped: 5 }),
    ]);
  });
});
