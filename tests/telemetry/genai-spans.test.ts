// The GenAI wrappers' edges (lib/telemetry/genai.ts), through a real OTLP/HTTP receiver: a model call or a
// tool that fails, at once or later, still ends its span with the error's class and the same error for the
// caller; a tool that returns a plain value (a JavaScript agent file's) is a span like any other; the tool's
// span is the active one while it runs (what it calls nests under it), both are children of the caller's.
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelAdapter, Tool, ToolContext } from "@/lib/runner";
import { ERROR_TYPE, GEN_AI, SPAN } from "@/lib/telemetry/conventions";
import { traceAgent, traceModels } from "@/lib/telemetry/genai";
import { flushTracing, startTracing, stopTracing, tracer } from "@/lib/telemetry/sdk";
import { type OtlpReceiver, otlpReceiver } from "../helpers/otlp-receiver";

const request = { model: "m", messages: [] } as unknown as Parameters<ModelAdapter["generate"]>[0];
const toolCtx = (id: string) => ({ toolCallId: id }) as ToolContext;
const answer = {
  text: "ok",
  tool_calls: [],
  finish_reason: "stop" as const,
  usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
};

describe("GenAI spans around model calls and tools", () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    await startTracing("afk-genai-test", {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      OTEL_SERVICE_NAME: undefined,
      OTEL_SDK_DISABLED: "false",
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "false",
    });
  });
  afterAll(async () => {
    await stopTracing();
    await receiver?.close();
  });

  it("end with the error's class when the call fails, and the caller gets the same error", async () => {
    const later = new TypeError("model down");
    const atOnce = new RangeError("bad request");
    const models = traceModels({
      later: { provider: "p", generate: () => Promise.reject(later) },
      atOnce: {
        provider: "p",
        generate: () => {
          throw atOnce;
        },
      },
      fine: { provider: "p", generate: async () => ({ ...answer, session_token: null, checkpoint_token: null, structured: null }) },
    });
    const throwing: Tool = {
      name: "boom",
      description: "",
      schema: undefined as never,
      execute: () => {
        throw new SyntaxError("bad args");
      },
    };
    const plain: Tool = { name: "plain", description: "", schema: undefined as never, execute: (() => 42) as unknown as Tool["execute"] };
    const seen: { tool?: string; model?: string } = {};
    const nested: Tool = {
      name: "nested",
      description: "",
      schema: undefined as never,
      execute: async () => {
        await Promise.resolve();
        seen.tool = trace.getActiveSpan()?.spanContext().spanId;
        return "n";
      },
    };
    const [boom, plainTool, nestedTool] = traceAgent({ name: "a", tools: [throwing, plain, nested] } as never).tools;

    const parent = tracer().startSpan("parent");
    await context.with(trace.setSpan(context.active(), parent), async () => {
      await expect(models.later.generate(request)).rejects.toBe(later);
      // A synchronous throw becomes a rejection, as from an async function.
      const p = models.atOnce.generate(request);
      await expect(p).rejects.toBe(atOnce);
      await expect(models.fine.generate(request)).resolves.toMatchObject({ text: "ok" });
      await expect(boom.execute({}, toolCtx("c1"))).rejects.toThrow("bad args");
      await expect(plainTool.execute({}, toolCtx("c2"))).resolves.toBe(42);
      await expect(nestedTool.execute({}, toolCtx("c3"))).resolves.toBe("n");
    });
    parent.end();
    await flushTracing();

    const spans = receiver.spans.filter((s) => s.traceId === parent.spanContext().traceId && s.name !== "parent");
    expect(spans.map((s) => s.parentSpanId)).toEqual(spans.map(() => parent.spanContext().spanId));
    const chats = spans.filter((s) => s.name === SPAN.chat("m"));
    expect(chats.map((s) => [s.attributes[ERROR_TYPE], s.status.code, s.status.message])).toEqual([
      ["TypeError", SpanStatusCode.ERROR, "model down"],
      ["RangeError", SpanStatusCode.ERROR, "bad request"],
      [undefined, SpanStatusCode.UNSET, undefined],
    ]);
    expect(chats[2].attributes).toMatchObject({ [GEN_AI.finishReasons]: ["stop"], [GEN_AI.inputTokens]: 3, [GEN_AI.outputTokens]: 2 });
    const tool = (name: string) => spans.find((s) => s.name === SPAN.executeTool(name))!;
    expect([tool("boom").attributes[ERROR_TYPE], tool("boom").status.code]).toEqual(["SyntaxError", SpanStatusCode.ERROR]);
    expect([tool("plain").attributes[GEN_AI.toolCallId], tool("plain").status.code]).toEqual(["c2", SpanStatusCode.UNSET]);
    // The tool's span was the active one inside it, after an await too.
    expect(seen.tool).toBe(tool("nested").spanId);
  });
});
