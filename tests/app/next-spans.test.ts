// Next.js's tracer cut to its request spans (lib/telemetry/next-spans.ts), on the real SDK: the request
// span is recorded, Next's inner spans are not, and what runs inside them nests under the request span.
import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { withNextRequestSpansOnly } from "@/lib/telemetry/next-spans";

const exporter = new InMemorySpanExporter();
const sdk = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const provider = withNextRequestSpansOnly(sdk);

// The SDK's AsyncLocalStorage context manager, as startTracing registers it.
beforeAll(() => {
  sdk.register();
});
afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

// As Next.js starts its spans: the span type in next.span_type, the request span active around the rest.
const nextSpan = <T>(type: string, fn: () => Promise<T>) =>
  provider
    .getTracer("next.js", "16.4.6")
    .startActiveSpan(
      type,
      { kind: type === "BaseServer.handleRequest" ? SpanKind.SERVER : SpanKind.INTERNAL, attributes: { "next.span_type": type } },
      async (span) => {
        try {
          return await fn();
        } finally {
          span.end();
        }
      },
    );

it("records Next's request span only; the console's spans inside its inner spans are the request span's children", async () => {
  exporter.reset();
  await nextSpan("BaseServer.handleRequest", () =>
    nextSpan("AppRouteRouteHandlers.runHandler", async () => {
      const inner = trace.getSpan(context.active());
      // The inner span stands for the request span: it records, so statements under it are spans.
      expect(inner?.isRecording()).toBe(true);
      await new Promise((r) => setTimeout(r, 1));
      provider.getTracer("afk-console").startSpan("SELECT").end();
      inner?.end(); // Next ending its inner span does not end the request span
      provider.getTracer("afk-console").startSpan("INSERT").end();
    }),
  );
  const spans = exporter.getFinishedSpans();
  expect(spans.map((s) => s.name)).toEqual(["SELECT", "INSERT", "BaseServer.handleRequest"]);
  const request = spans[2];
  expect(request.kind).toBe(SpanKind.SERVER);
  for (const s of spans.slice(0, 2)) expect(s.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  // Outside a request, an inner span of Next's is no span at all.
  await nextSpan("NextNodeServer.startResponse", async () => {
    expect(trace.getSpan(context.active())?.isRecording()).toBe(false);
  });
  expect(exporter.getFinishedSpans()).toHaveLength(3);
  // One tracer per name and version.
  expect(provider.getTracer("next.js", "16.4.6")).toBe(provider.getTracer("next.js", "16.4.6"));
});
