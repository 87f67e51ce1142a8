// Traces on the embedded setup (SQLite, runs executed in the requesting process through the in-process
// queue), with message content turned on: the request's trace reaches the run's spans through the
// in-process job as through pg-boss, the content variable puts prompts, answers, tool arguments and
// results on the spans, and a run resumed by a request other than its decisions links to each of them. Also: without an endpoint nothing is started and nothing is wrapped;
// and through Next.js's own tracer (its request span, its route handler's span inside), the decision
// request's span carries the afk.approval.decided event (lib/telemetry/next-spans.ts).
import { SpanKind, trace } from "@opentelemetry/api";
import { getTracer as nextTracer } from "next/dist/server/lib/trace/tracer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { decide } from "@/lib/services/decide";
import { resumeRun } from "@/lib/services/operate";
import { startRun } from "@/lib/services/start";
import { listApprovals } from "@/lib/runner";
import { traceModels } from "@/lib/telemetry/genai";
import { AFK, EVENT, GEN_AI, SPAN } from "@/lib/telemetry/conventions";
import { flushTracing, startTracing, stopTracing, TRACER_NAME, tracesUrl, tracingOn } from "@/lib/telemetry/sdk";
import { op, rev, sub } from "../helpers/actors";
import { manualResume } from "../helpers/agents";
import { testContext } from "../helpers/context";
import { freshDatabase, type TestDb } from "../helpers/databases";
import { type OtlpReceiver, otlpReceiver } from "../helpers/otlp-receiver";

describe("the OTEL_* variables", () => {
  const base = { NEXTAUTH_SECRET: "a-test-secret-of-enough-length" };
  it("turn tracing on only with an endpoint, and refuse what would send nothing", () => {
    expect(tracesUrl(parseEnv(base))).toBeNull();
    expect(tracesUrl(parseEnv({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }))).toBe("http://collector:4318/v1/traces");
    expect(tracesUrl(parseEnv({ ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/custom" }))).toBe("http://c:4318/custom");
    expect(tracesUrl(parseEnv({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }))).toBeNull();
    expect(() => parseEnv({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => parseEnv({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: must be http\/json/);
    expect(parseEnv(base).OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT).toBe("false");
  });
});

describe("traces in one embedded instance (SQLite), message content on", () => {
  let receiver: OtlpReceiver;
  let t: TestDb;

  beforeAll(async () => {
    receiver = await otlpReceiver();
  });
  afterAll(async () => {
    await stopTracing();
    await t?.drop();
    await receiver?.close();
  });

  it("without an endpoint nothing starts and the models are not wrapped", async () => {
    // Not yet started in this file: the state is per process (globalThis), so this runs first.
    const models = {};
    expect(tracingOn()).toBe(false);
    expect(traceModels(models)).toBe(models);
  });

  it("the request's trace runs through the in-process job; content is on the spans", async () => {
    const on = await startTracing("afk-embedded-test", {
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_SERVICE_NAME: undefined,
      OTEL_SDK_DISABLED: "false",
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
    });
    expect(on).toBe(true);
    t = await freshDatabase("sqlite");
    const ctx = testContext(t.db, { agents: manualResume(t.db, "refund-desk") });
    const tracer = trace.getTracer(TRACER_NAME);
    const request = (name: string, fn: () => Promise<unknown>) =>
      tracer.startActiveSpan(name, { kind: SpanKind.SERVER }, async (span) => {
        try {
          return await fn();
        } finally {
          span.end();
        }
      });
    const run = (await request("POST /api/runs", () =>
      startRun(ctx, sub, { body: { agent: "deploy-bot", input: { service: "api", version: "1.2.3", environment: "staging" } } }),
    )) as { id: string };
    await ctx.worker.idle();
    const [approval] = await listApprovals(ctx.store, run.id, run.id);
    await request("POST /api/approvals/{id}/decision", () => decide(ctx, rev, { approvalId: approval.id, body: { decision: "approve" } }));
    await ctx.worker.idle();
    await flushTracing();

    const spans = receiver.spans;
    const startReq = spans.find((s) => s.name === "POST /api/runs")!;
    const decideReq = spans.find((s) => s.name === "POST /api/approvals/{id}/decision")!;
    const segments = spans.filter((s) => s.name === SPAN.invokeAgent("deploy-bot")).sort((a, b) => a.startMs - b.startMs);
    expect(segments.map((s) => [s.traceId, s.parentSpanId, s.attributes[AFK.outcome]])).toEqual([
      [startReq.traceId, startReq.spanId, "paused"],
      [decideReq.traceId, decideReq.spanId, "completed"],
    ]);
    expect(segments[1].links.map((l) => l.spanId)).toEqual([segments[0].spanId]);
    // SQLite statements, inside the segments.
    expect(spans.some((s) => s.traceId === segments[0].traceId && s.attributes["db.system.name"] === "sqlite")).toBe(true);

    const chat = spans.find((s) => s.name === SPAN.chat("deploy-bot") && s.parentSpanId === segments[1].spanId)!;
    const input = JSON.parse(String(chat.attributes[GEN_AI.inputMessages])) as { role: string; content: string }[];
    expect(input.map((m) => m.role)).toContain("user");
    expect(input.find((m) => m.role === "user")?.content).toContain("Service: api");
    expect(String(chat.attributes[GEN_AI.outputMessages])).toContain("Deployed api 1.2.3 to staging");
    const deploy = spans.find((s) => s.name === SPAN.executeTool("deploy"))!;
    expect(JSON.parse(String(deploy.attributes[GEN_AI.toolArguments]))).toEqual({
      service: "api",
      version: "1.2.3",
      environment: "staging",
    });
    expect(String(deploy.attributes[GEN_AI.toolResult])).toContain('"status":"deployed"');

    // An agent that waits for its Resume (refund-desk, opted out): two decisions in two requests, the resume
    // in a third. The resumed segment is in the Resume's trace and links to the segment before the pause and
    // to both decisions.
    const refund = (await request("POST /api/runs refund", () =>
      startRun(ctx, sub, {
        body: { agent: "refund-desk-manual", input: { order_id: "ORD-1234", amount_cents: 9000, reason: "Arrived broken" } },
      }),
    )) as { id: string };
    await ctx.worker.idle();
    const pending = await listApprovals(ctx.store, refund.id, refund.id);
    expect(pending.map((a) => a.tool_name).sort()).toEqual(["issue_refund", "notify_customer"]);
    for (const [i, a] of pending.entries())
      await request(`POST decision ${i}`, () => decide(ctx, rev, { approvalId: a.id, body: { decision: "approve" } }));
    await request("POST /api/runs/{id}/resume", () => resumeRun(ctx, op, { runId: refund.id }));
    await ctx.worker.idle();
    await flushTracing();
    const named = (n: string) => receiver.spans.find((s) => s.name === n)!;
    const [before, after] = receiver.spans
      .filter((s) => s.name === SPAN.invokeAgent("refund-desk-manual"))
      .sort((a, b) => a.startMs - b.startMs);
    const resumeReq = named("POST /api/runs/{id}/resume");
    expect([before.traceId, after.traceId, after.parentSpanId]).toEqual([
      named("POST /api/runs refund").traceId,
      resumeReq.traceId,
      resumeReq.spanId,
    ]);
    expect(after.links.map((l) => [l.spanId, l.attributes[AFK.linkKind]])).toEqual([
      [before.spanId, "previous_segment"],
      [named("POST decision 0").spanId, "decision"],
      [named("POST decision 1").spanId, "decision"],
    ]);
    expect(
      after.events
        .filter((e) => e.name === EVENT.approvalDecided)
        .map((e) => e.attributes[GEN_AI.toolName])
        .sort(),
    ).toEqual(["issue_refund", "notify_customer"]);
    expect(after.attributes[AFK.outcome]).toBe("completed");
  }, 60_000);

  it("a decision made in a route handler is an event of Next.js's request span", async () => {
    const ctx = testContext(t.db);
    const run = await startRun(ctx, sub, {
      body: { agent: "deploy-bot", input: { service: "web", version: "3.0.0", environment: "staging" } },
    });
    await ctx.worker.idle();
    const [approval] = await listApprovals(ctx.store, run.id, run.id);
    // As Next.js serves POST /api/approvals/{id}/decision: its request span, its route handler's inside.
    const next = nextTracer();
    await next.trace(
      "BaseServer.handleRequest",
      { spanName: "POST", kind: SpanKind.SERVER, attributes: { "http.method": "POST", "http.target": "/decision" } },
      (span) =>
        next
          .trace("AppRouteRouteHandlers.runHandler", { spanName: "executing api route (app) /decision" }, () =>
            decide(ctx, rev, { approvalId: approval.id, body: { decision: "approve" } }),
          )
          .finally(() => span.updateName("POST /decision")),
    );
    await ctx.worker.idle();
    await flushTracing();
    const requests = receiver.spans.filter((s) => s.name === "POST /decision");
    expect(requests).toHaveLength(1);
    expect(requests[0].kind).toBe(2); // SERVER
    expect(requests[0].events.filter((e) => e.name === EVENT.approvalDecided).map((e) => e.attributes)).toEqual([
      expect.objectContaining({ [AFK.approvalId]: approval.id, [AFK.decision]: "approved", [GEN_AI.toolName]: "deploy" }),
    ]);
    // Only the request span of Next's; the resumed segment is its child.
    expect(receiver.spans.filter((s) => s.attributes["next.span_type"]).map((s) => s.name)).toEqual(["POST /decision"]);
    const resumed = receiver.spans.find((s) => s.name === SPAN.invokeAgent("deploy-bot") && s.traceId === requests[0].traceId);
    expect(resumed?.parentSpanId).toBe(requests[0].spanId);
  }, 60_000);
});
