// Next.js's tracer cut to its request spans (lib/telemetry/next-spans.ts), on the real SDK: the request
// span is recorded, Next's inner spans are not, and what runs inside them nests under the request span,
// which stays the active span there (what the console records on it lands on the request).
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
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
const nextSpan = <T>(type: string, fn: (span: Span) => Promise<T>) =>
  provider
    .getTracer("next.js", "16.4.6")
    .startActiveSpan(
      type,
      { kind: type === "BaseServer.handleRequest" ? SpanKind.SERVER : SpanKind.INTERNAL, attributes: { "next.span_type": type } },
      async (span) => {
        try {
          return await fn(span);
        } finally {
          span.end();
        }
      },
    );

it("records Next's request span only; the console's spans inside its inner spans are the request span's children", async () => {
  exporter.reset();
  await nextSpan("BaseServer.handleRequest", () =>
    nextSpan("AppRouteRouteHandlers.runHandler", async (inner) => {
      // The inner span stands for the request span: it records, so statements under it are spans.
      expect(inner.isRecording()).toBe(true);
      const active = trace.getSpan(context.active());
      expect(active?.spanContext()).toEqual(inner.spanContext());
      await new Promise((r) => setTimeout(r, 1));
      provider.getTracer("afk-console").startSpan("SELECT").end();
      // What Next does to its inner span goes nowhere: it does not end, rename or mark the request span.
      inner.setAttribute("next.route", "/inner").setStatus({ code: SpanStatusCode.ERROR }).updateName("inner");
      inner.end();
      provider.getTracer("afk-console").startSpan("INSERT").end();
      // What the route handler records on the active span is the request span's.
      active?.addEvent("afk.approval.decided", { "afk.approval.id": "a1" });
      active?.setAttribute("afk.run.id", "r1");
    }),
  );
  const spans = exporter.getFinishedSpans();
  expect(spans.map((s) => s.name)).toEqual(["SELECT", "INSERT", "BaseServer.handleRequest"]);
  const request = spans[2];
  expect(request.kind).toBe(SpanKind.SERVER);
  expect(request.events.map((e) => [e.name, e.attributes])).toEqual([["afk.approval.decided", { "afk.approval.id": "a1" }]]);
  expect(request.attributes).toEqual({ "next.span_type": "BaseServer.handleRequest", "afk.run.id": "r1" });
  expect(request.status.code).toBe(SpanStatusCode.UNSET);
  for (const s of spans.slice(0, 2)) expect(s.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  // Outside a request, an inner span of Next's is no span at all.
  await nextSpan("NextNodeServer.startResponse", async (inner) => {
    expect(inner.isRecording()).toBe(false);
    expect(trace.getSpan(context.active())).toBeUndefined();
  });
  expect(exporter.getFinishedSpans()).toHaveLength(3);
  // One tracer per name and version.
  expect(provider.getTracer("next.js", "16.4.6")).toBe(provider.getTracer("next.js", "16.4.6"));
});
