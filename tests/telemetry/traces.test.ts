// Traces for real (PostgreSQL): a real OTLP/HTTP receiver (tests/helpers/otlp-receiver.ts) gets the spans of
// a run that pauses for an approval and is resumed by the decision, across this process as the web instance
// (AFK_WORKERS=0: it only queues) and a real `scripts/worker.ts` process that executes the run. The worker
// batches its spans for ten minutes, so they arrive only because SIGTERM flushes them. Checked: one trace
// from the start request through the worker's first segment, one from the decision through the resumed
// segment, which links to the first; the GenAI span names and attributes (lib/telemetry/conventions.ts);
// the approval's request and decision as events with the wait; database spans in the segment; no message
// content (it is off by default). A run with subagents: each subagent's execution an invoke_agent span
// under its parent's segment, with its own model calls, tools and approval. A worker stopped by SIGTERM in
// the middle of a model call (the demo model made slow) hands its run back and still sends the segment's
// and the call's spans, ended as interrupted.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SpanKind, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { createDb, type Db } from "@/lib/db/client";
import { PgLiveBus } from "@/lib/live/bus";
import { listApprovals } from "@/lib/runner";
import { decide } from "@/lib/services/decide";
import { startRun } from "@/lib/services/start";
import { AFK, EVENT, GEN_AI, SPAN } from "@/lib/telemetry/conventions";
import { flushTracing, startTracing, stopTracing, TRACER_NAME } from "@/lib/telemetry/sdk";
import { actor, rev, sub } from "../helpers/actors";
import { testContext } from "../helpers/context";
import { freshDatabase, type TestDb } from "../helpers/databases";
import { type OtlpReceiver, otlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver";

const pgUrl = process.env.TEST_POSTGRES_URL;
const root = path.resolve(import.meta.dirname, "../..");

describe.skipIf(!pgUrl)("traces across a web instance and a worker process (PostgreSQL, OTLP/HTTP JSON)", () => {
  let receiver: OtlpReceiver;
  let t: TestDb;
  let web: AppContext;
  let db: Db;
  let live: PgLiveBus;
  let worker: ChildProcess | null = null;
  let workerOutput = "";

  beforeAll(async () => {
    receiver = await otlpReceiver();
    // This process is the web instance: tracing on before its database client exists.
    const on = await startTracing("afk-web-test", {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      OTEL_SERVICE_NAME: undefined,
      OTEL_SDK_DISABLED: "false",
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "false",
    });
    expect(on).toBe(true);
    t = await freshDatabase("postgresql");
    db = createDb(t.url);
    live = new PgLiveBus(t.url);
    await live.ready;
    web = testContext(db, { queue: { url: t.url, concurrency: 0 }, live });
    await web.queue!.ready();
  });

  afterAll(async () => {
    if (worker && worker.exitCode === null) worker.kill("SIGKILL");
    await web?.queue?.stop(2000);
    await live?.close();
    await db?.$disconnect();
    await stopTracing();
    await t?.drop();
    await receiver?.close();
  });

  function startWorker(extra: Record<string, string> = {}) {
    const p = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/worker.ts"], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: t.url,
        AFK_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "afk-traces-")),
        NEXTAUTH_SECRET: "a-test-secret-of-enough-length",
        AFK_WORKERS: "1",
        LOG_LEVEL: "info",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "afk-worker-test",
        // Nothing leaves before SIGTERM: the spans asserted below were flushed by the shutdown path.
        OTEL_BSP_SCHEDULE_DELAY: "600000",
        OTEL_BSP_MAX_QUEUE_SIZE: "10000",
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "10000",
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: undefined,
        AFK_FAILPOINT: undefined,
        ...extra,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    p.stdout!.on("data", (c: Buffer) => (workerOutput += c.toString()));
    p.stderr!.on("data", (c: Buffer) => (workerOutput += c.toString()));
    return p;
  }

  const runState = async (id: string) => (await db.run.findUnique({ where: { id }, select: { state: true } }))?.state;

  it("one trace from each request through the worker; the resumed segment links to the first; spans flushed at SIGTERM", async () => {
    worker = startWorker();
    await expect.poll(() => workerOutput, { timeout: 30_000, interval: 100 }).toContain("worker started");

    const tracer = trace.getTracer(TRACER_NAME);
    // The start request (in the server, the route's span: Next's own, with this SDK registered).
    const run = await tracer.startActiveSpan("POST /api/runs", { kind: SpanKind.SERVER }, async (span) => {
      try {
        return await startRun(web, sub, {
          body: { agent: "deploy-bot", input: { service: "api", version: "1.2.3", environment: "staging" } },
        });
      } finally {
        span.end();
      }
    });
    await expect.poll(() => runState(run.id), { timeout: 30_000, interval: 100 }).toBe("paused");
    const [approval] = (await listApprovals(web.store, run.id, run.id)).filter((a) => a.status === "pending");
    expect(approval.tool_name).toBe("deploy");

    await new Promise((r) => setTimeout(r, 300)); // a wait the decision event measures
    // The decision; deploy-bot resumes by itself, so this request also queues the resume.
    const decided = await tracer.startActiveSpan("POST /api/approvals/{id}/decision", { kind: SpanKind.SERVER }, async (span) => {
      try {
        return await decide(web, rev, { approvalId: approval.id, body: { decision: "approve" } });
      } finally {
        span.end();
      }
    });
    expect(decided.resumed).toBe(true);
    await expect.poll(() => runState(run.id), { timeout: 30_000, interval: 100 }).toBe("completed");

    // Still buffered in the worker: nothing of it has arrived.
    await flushTracing();
    expect(receiver.spans.filter((s) => s.service === "afk-worker-test")).toEqual([]);
    const exited = new Promise<number | null>((r) => worker!.once("exit", (code) => r(code)));
    const sigtermAt = Date.now();
    worker.kill("SIGTERM");
    expect(await exited).toBe(0);

    const w = receiver.spans.filter((s) => s.service === "afk-worker-test");
    const webSpans = receiver.spans.filter((s) => s.service === "afk-web-test");
    expect(w.length).toBeGreaterThan(0);
    for (const s of w) expect(s.receivedAt).toBeGreaterThanOrEqual(sigtermAt);
    expect(receiver.requests.every((r) => r.contentType?.startsWith("application/json"))).toBe(true);

    const one = (name: string, spans: ReceivedSpan[] = webSpans) => {
      const found = spans.filter((s) => s.name === name);
      expect(found, name).toHaveLength(1);
      return found[0];
    };
    const startSpan = one("POST /api/runs");
    const decideSpan = one("POST /api/approvals/{id}/decision");

    // Two segments of the run, each in the trace of the request that queued it, as its child.
    const segments = w.filter((s) => s.name === SPAN.invokeAgent("deploy-bot")).sort((a, b) => a.startMs - b.startMs);
    expect(segments).toHaveLength(2);
    const [first, second] = segments;
    expect([first.traceId, first.parentSpanId]).toEqual([startSpan.traceId, startSpan.spanId]);
    expect([second.traceId, second.parentSpanId]).toEqual([decideSpan.traceId, decideSpan.spanId]);
    for (const s of segments)
      expect(s.attributes).toMatchObject({
        [GEN_AI.operationName]: "invoke_agent",
        [GEN_AI.agentName]: "deploy-bot",
        [GEN_AI.conversationId]: run.id,
        [AFK.runId]: run.id,
      });
    expect(first.attributes[AFK.outcome]).toBe("paused");
    expect(second.attributes[AFK.outcome]).toBe("completed");
    expect(Number(first.attributes[AFK.queueWaitMs])).toBeGreaterThanOrEqual(0);
    // The first segment ends at the pause, with the approval requested; the second links back to it.
    expect(first.events.map((e) => e.name)).toEqual([EVENT.approvalRequested, EVENT.paused]);
    expect(first.events[0].attributes).toMatchObject({ [AFK.approvalId]: approval.id, [GEN_AI.toolCallId]: "call_deploy" });
    expect(second.links).toEqual([{ traceId: first.traceId, spanId: first.spanId, attributes: { [AFK.linkKind]: "previous_segment" } }]);
    const decidedEvent = second.events.find((e) => e.name === EVENT.approvalDecided)!;
    expect(decidedEvent.attributes).toMatchObject({
      [AFK.approvalId]: approval.id,
      [AFK.decision]: "approved",
      [GEN_AI.toolName]: "deploy",
    });
    expect(Number(decidedEvent.attributes[AFK.waitS])).toBeGreaterThanOrEqual(0.3);
    // The decision on the request's own span too.
    expect(decideSpan.events.find((e) => e.name === EVENT.approvalDecided)?.attributes).toMatchObject({ [AFK.approvalId]: approval.id });

    // Model calls: two before the pause, one after, each a child of its segment.
    const chats = w.filter((s) => s.name === SPAN.chat("deploy-bot"));
    expect(chats.map((c) => c.parentSpanId).sort()).toEqual([first.spanId, first.spanId, second.spanId].sort());
    for (const c of chats) {
      expect(c.attributes).toMatchObject({
        [GEN_AI.operationName]: "chat",
        [GEN_AI.providerName]: "demo",
        [GEN_AI.requestModel]: "deploy-bot",
      });
      expect(c.attributes[GEN_AI.finishReasons]).toEqual([expect.stringMatching(/^(stop|tool_calls)$/)]);
      expect(Number(c.attributes[GEN_AI.inputTokens])).toBeGreaterThan(0);
      expect(Number(c.attributes[GEN_AI.outputTokens])).toBeGreaterThan(0);
      expect(Number(c.attributes[AFK.timeToFirstChunkS])).toBeGreaterThanOrEqual(0);
      // Content is off unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
      expect(c.attributes[GEN_AI.inputMessages]).toBeUndefined();
      expect(c.attributes[GEN_AI.outputMessages]).toBeUndefined();
    }
    // Tools: get_status before the pause, the approved deploy after it.
    const status = one(SPAN.executeTool("get_status"), w);
    const deploy = one(SPAN.executeTool("deploy"), w);
    expect([status.parentSpanId, deploy.parentSpanId]).toEqual([first.spanId, second.spanId]);
    expect(status.attributes).toMatchObject({
      [GEN_AI.toolName]: "get_status",
      [GEN_AI.toolCallId]: "call_status",
      [GEN_AI.operationName]: "execute_tool",
    });
    expect(deploy.attributes).toMatchObject({ [GEN_AI.toolName]: "deploy", [GEN_AI.toolCallId]: "call_deploy" });
    expect(deploy.attributes[GEN_AI.toolArguments]).toBeUndefined();

    // Database spans: the tools' statements in the worker (get_status reads before the pause, deploy writes
    // after it), the requests' in the web instance.
    const inTrace = (traceId: string, spans: ReceivedSpan[]) =>
      spans.filter((s) => s.traceId === traceId && s.attributes["db.system.name"] === "postgresql");
    expect(inTrace(first.traceId, w).length).toBeGreaterThan(0);
    expect(inTrace(second.traceId, w).length).toBeGreaterThan(0);
    expect(inTrace(startSpan.traceId, webSpans).length).toBeGreaterThan(0);
    expect(inTrace(decideSpan.traceId, webSpans).some((s) => String(s.attributes["db.query.text"]).includes('"traceContext"'))).toBe(true);
    // Every span of the worker is in one of the two request traces (background statements make none).
    expect(new Set(w.map((s) => s.traceId))).toEqual(new Set([first.traceId, second.traceId]));
    // In a segment, a tool's statements are spans (under its execute_tool span); the segment's own
    // statements (the writes of the runner's records, the Run row's progress, the lease check, reads) are
    // counted with their time on the segment's span, the record writes apart.
    const dbSpans = w.filter((x) => x.attributes["db.system.name"]);
    expect(dbSpans.filter((x) => x.parentSpanId !== deploy.spanId && x.parentSpanId !== status.spanId)).toEqual([]);
    // The tools' own statements (the deploy's insert of its Deployment) under their execute_tool spans.
    expect(dbSpans.filter((x) => x.parentSpanId === deploy.spanId).map((x) => x.attributes["db.query.text"])).toEqual(
      expect.arrayContaining([expect.stringMatching(/"Deployment"/)]),
    );
    for (const s of segments) {
      expect(Number(s.attributes[AFK.untracedStatements])).toBeGreaterThan(0);
      expect(Number(s.attributes[AFK.untracedMs])).toBeGreaterThan(0);
      // Each segment writes records: at least its checkpoints.
      expect(Number(s.attributes[AFK.recordWrites])).toBeGreaterThan(0);
      expect(Number(s.attributes[AFK.recordWriteMs])).toBeGreaterThan(0);
    }
  }, 120_000);

  it("a subagent's execution is an invoke_agent span of its own, the child of its parent's segment", async () => {
    workerOutput = "";
    worker = startWorker();
    await expect.poll(() => workerOutput, { timeout: 30_000, interval: 100 }).toContain("worker started");
    const from = receiver.spans.length;
    const tracer = trace.getTracer(TRACER_NAME);
    const request = <T>(name: string, fn: () => Promise<T>) =>
      tracer.startActiveSpan(name, { kind: SpanKind.SERVER }, async (span) => {
        try {
          return await fn();
        } finally {
          span.end();
        }
      });
    // release-coordinator delegates to changelog-writer (completes) and deploy-bot (pauses on its deploy).
    const run = await request("POST /api/runs", () =>
      startRun(web, sub, { body: { agent: "release-coordinator", input: { service: "search", version: "2.0.0" } } }),
    );
    await expect.poll(() => runState(run.id), { timeout: 30_000, interval: 100 }).toBe("paused");
    const shipRun = `${run.id}.call_ship`;
    const [approval] = (await listApprovals(web.store, run.id, shipRun)).filter((a) => a.status === "pending");
    expect(approval.tool_name).toBe("deploy");
    // A production deploy needs two reviewers: the second vote completes the step and resumes the run.
    const votes: boolean[] = [];
    for (const who of [rev, actor("reviewer", "rev2")])
      votes.push(
        (
          await request("POST /api/approvals/{id}/decision", () =>
            decide(web, who, { approvalId: approval.id, body: { decision: "approve" } }),
          )
        ).resumed,
      );
    expect(votes).toEqual([false, true]);
    await expect.poll(() => runState(run.id), { timeout: 30_000, interval: 100 }).toBe("completed");
    const exited = new Promise<number | null>((r) => worker!.once("exit", (code) => r(code)));
    worker.kill("SIGTERM");
    expect(await exited).toBe(0);

    const w = receiver.spans.slice(from).filter((s) => s.service === "afk-worker-test");
    const named = (name: string) => w.filter((s) => s.name === name).sort((a, b) => a.startMs - b.startMs);
    const [first, second] = named(SPAN.invokeAgent("release-coordinator"));
    expect(named(SPAN.invokeAgent("release-coordinator"))).toHaveLength(2);
    expect([first.attributes[AFK.outcome], second.attributes[AFK.outcome]]).toEqual(["paused", "completed"]);

    // changelog-writer ran once, in the first segment; it is not run again when the batch is re-entered.
    const writers = named(SPAN.invokeAgent("changelog-writer"));
    expect(writers).toHaveLength(1);
    const [writer] = writers;
    expect([writer.traceId, writer.parentSpanId]).toEqual([first.traceId, first.spanId]);
    expect(writer.attributes).toMatchObject({
      [GEN_AI.operationName]: "invoke_agent",
      [GEN_AI.agentName]: "changelog-writer",
      [GEN_AI.conversationId]: run.id,
      [AFK.runId]: `${run.id}.call_notes`,
      [AFK.rootRunId]: run.id,
      [AFK.outcome]: "completed",
    });
    expect(named(SPAN.chat("changelog-writer")).map((c) => c.parentSpanId)).toEqual([writer.spanId]);

    // deploy-bot: paused in the first segment (its approval requested on its own span), resumed in the second.
    const ships = named(SPAN.invokeAgent("deploy-bot"));
    expect(ships).toHaveLength(2);
    expect(ships.map((s) => [s.parentSpanId, s.attributes[AFK.runId], s.attributes[AFK.outcome]])).toEqual([
      [first.spanId, shipRun, "paused"],
      [second.spanId, shipRun, "completed"],
    ]);
    expect(ships[0].events.find((e) => e.name === EVENT.approvalRequested)?.attributes).toMatchObject({
      [AFK.approvalId]: approval.id,
      [GEN_AI.toolCallId]: "call_deploy",
    });
    expect(first.events.map((e) => e.name)).not.toContain(EVENT.approvalRequested);
    // The subagent's model calls and tools nest under its span, not under the parent's segment.
    for (const c of named(SPAN.chat("deploy-bot"))) expect(ships.map((s) => s.spanId)).toContain(c.parentSpanId);
    expect(named(SPAN.executeTool("get_status")).map((t) => t.parentSpanId)).toEqual([ships[0].spanId]);
    expect(named(SPAN.executeTool("deploy")).map((t) => t.parentSpanId)).toEqual([ships[1].spanId]);
    expect(named(SPAN.chat("release-coordinator")).every((c) => c.parentSpanId === first.spanId || c.parentSpanId === second.spanId)).toBe(
      true,
    );
  }, 120_000);

  it("SIGTERM in the middle of a model call: the handed-back segment and its call arrive, ended as interrupted", async () => {
    workerOutput = "";
    // Each model call takes two minutes: the run is in its first call when the worker is stopped.
    worker = startWorker({ AFK_DEMO_LATENCY_MS: "120000" });
    await expect.poll(() => workerOutput, { timeout: 30_000, interval: 100 }).toContain("worker started");
    const from = receiver.spans.length;
    const run = await trace.getTracer(TRACER_NAME).startActiveSpan("POST /api/runs slow", { kind: SpanKind.SERVER }, async (span) => {
      try {
        return await startRun(web, sub, {
          body: { agent: "deploy-bot", input: { service: "api", version: "9.9.9", environment: "staging" } },
        });
      } finally {
        span.end();
      }
    });
    await expect.poll(() => runState(run.id), { timeout: 30_000, interval: 100 }).toBe("running");
    await new Promise((r) => setTimeout(r, 1500)); // into the first model call
    const exited = new Promise<number | null>((r) => worker!.once("exit", (code) => r(code)));
    const sigtermAt = Date.now();
    worker.kill("SIGTERM");
    expect(await exited).toBe(0);
    // The drain waited for the run and then handed it back: nothing of it finished.
    expect(await runState(run.id)).toBe("running");
    await flushTracing();

    const w = receiver.spans.slice(from).filter((s) => s.service === "afk-worker-test");
    const request = receiver.spans.find((s) => s.name === "POST /api/runs slow")!;
    const segments = w.filter((s) => s.name === SPAN.invokeAgent("deploy-bot") && s.attributes[AFK.runId] === run.id);
    expect(segments).toHaveLength(1);
    const [segment] = segments;
    expect([segment.traceId, segment.parentSpanId]).toEqual([request.traceId, request.spanId]);
    const interrupted = { code: 2, message: "interrupted: the process stopped before this ended" }; // STATUS_CODE_ERROR
    expect(segment.status).toEqual(interrupted);
    expect(segment.attributes).toMatchObject({ [AFK.outcome]: "interrupted", "error.type": "interrupted" });
    const chats = w.filter((s) => s.name === SPAN.chat("deploy-bot") && s.parentSpanId === segment.spanId);
    expect(chats).toHaveLength(1);
    expect(chats[0].status).toEqual(interrupted);
    expect(chats[0].attributes).toMatchObject({ "error.type": "interrupted", [GEN_AI.requestModel]: "deploy-bot" });
    // Ended at the stop, not when the call would have answered.
    for (const s of [segment, chats[0]]) {
      expect(s.endMs).toBeGreaterThanOrEqual(sigtermAt);
      expect(s.endMs - s.startMs).toBeLessThan(120_000);
      expect(s.receivedAt).toBeGreaterThanOrEqual(sigtermAt);
    }
  }, 150_000);
});
