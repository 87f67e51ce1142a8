// The AI SDK adapters against a local HTTP server that speaks each provider's wire format.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Agent, InMemoryStore, Runner, decideApproval, defineTool, keys, parseKey } from "@/lib/runner";
import { providerAdapters } from "@/lib/models/ai-sdk";
import { type WireTurn, anthropicEvents, openaiChunks, openaiResponsesEvents, writeStream } from "../helpers/llm-wire";

type Seen = { path: string; headers: IncomingMessage["headers"]; body: Record<string, unknown>; closedEarly: () => boolean };
let server: Server;
let base: string;
const seen: Seen[] = [];
// Per path, a queue of answers: [status, JSON body] for errors, or a streamed turn.
type Answer = [number, unknown] | { turn: WireTurn; delayMs?: number; cutAfter?: number; responseId?: string };
const script = new Map<string, Answer[]>();

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    let finished = false;
    res.on("finish", () => (finished = true));
    seen.push({ path: req.url ?? "", headers: req.headers, body: JSON.parse(text || "{}"), closedEarly: () => !finished && res.destroyed });
    const next = script.get(req.url ?? "")?.shift() ?? [404, { error: { message: "no script" } }];
    if (Array.isArray(next)) {
      res.writeHead(next[0], { "content-type": "application/json" });
      res.end(JSON.stringify(next[1]));
      return;
    }
    const events = req.url?.endsWith("/messages")
      ? anthropicEvents(next.turn)
      : req.url?.endsWith("/responses")
        ? openaiResponsesEvents(next.turn, next.responseId)
        : openaiChunks(next.turn);
    await writeStream(res, events, next);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const openaiToolCall: Answer = {
  turn: { toolCalls: [{ id: "call_1", name: "lookup", args: { q: "order 7" } }], usage: { input: 20, output: 7 } },
};
const openaiText = (t: string): Answer => ({ turn: { text: t, usage: { input: 40, output: 5 } } });
const anthropicToolUse: Answer = {
  turn: { text: "Let me look.", toolCalls: [{ id: "toolu_1", name: "lookup", args: { q: "order 7" } }], usage: { input: 30, output: 9 } },
};
const anthropicText: Answer = { turn: { text: "Order 7 shipped.", usage: { input: 50, output: 4 } } };

const lookup = defineTool({
  name: "lookup",
  description: "Look up",
  schema: z.object({ q: z.string() }),
  async execute({ q }) {
    return { found: q };
  },
});
const agent = (model: string, fallback: string[] = []): Agent => ({
  name: "asker",
  model,
  instructions: "Be brief.",
  tools: [lookup],
  failSafe: { fallbackModelChain: fallback },
});
const KEY = "sk-planted-secret-1234567890";
const config = { retry: { maxRetries: 2, baseDelayMs: 1 }, failpoint: undefined };

describe("AI SDK providers over real HTTP", () => {
  it("openai: Responses wire format; the next call continues from the previous response id; key never stored", async () => {
    seen.length = 0;
    script.set("/v1/responses", [
      { ...openaiToolCall, responseId: "resp_A" },
      { ...openaiText("Order 7 is on its way."), responseId: "resp_B" },
    ]);
    const store = new InMemoryStore();
    const runner = new Runner(store, providerAdapters({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${base}/v1` }), config);
    const r = await runner.run(agent("openai:gpt-4o"), { userMessage: "Where is order 7?", runId: "o1" });
    expect(r.state).toBe("completed");
    expect(r.finalText).toBe("Order 7 is on its way.");
    expect(r.usage).toEqual({ inputTokens: 60, outputTokens: 12, totalTokens: 72 });
    expect(r.totalCostUsd).toBeCloseTo((60 * 2.5 + 12 * 10) / 1e6, 12);
    expect(seen[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0].body).toMatchObject({ model: "gpt-4o", stream: true, tools: [{ type: "function", name: "lookup" }] });
    expect(seen[0].body.previous_response_id).toBeUndefined();
    // The second call sends the instructions and the tool result only, after resp_A.
    expect(seen[1].body.previous_response_id).toBe("resp_A");
    const input = seen[1].body.input as Record<string, unknown>[];
    expect(input.map((i) => i.role ?? i.type)).toEqual(["system", "function_call_output"]);
    expect(input[1]).toMatchObject({ call_id: "call_1", output: '{"found":"order 7"}' });
    // The session token is checkpointed at post_llm (the snapshot carries it for a resume).
    const dump = JSON.stringify(await store.listState("o1", ""));
    expect(dump).toContain('"session_token":"resp_B"');
    expect(dump).not.toContain(KEY);
  });

  it("a stale session token on resume: the call fails, the retry goes without it and sends the whole conversation", async () => {
    seen.length = 0;
    script.set("/v1/responses", [
      { ...openaiToolCall, responseId: "resp_old" },
      [
        400,
        {
          error: {
            message: "Previous response with id 'resp_old' not found.",
            type: "invalid_request_error",
            param: "previous_response_id",
          },
        },
      ],
      { ...openaiText("Order 7 is on its way."), responseId: "resp_new" },
    ]);
    const store = new InMemoryStore();
    const runner = new Runner(store, providerAdapters({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${base}/v1` }), config);
    const a = { ...agent("openai:gpt-4o"), policy: [{ id: "ask", tool: "lookup", action: "require_approval" as const }] };
    const paused = await runner.run(a, { userMessage: "Where is order 7?", runId: "st1" });
    expect(paused.state).toBe("paused");
    await decideApproval(store, paused.threadId, paused.pendingApprovals[0], lookup, { by: "r@example.com", decision: "approve" });
    const r = await runner.resume(a, { runId: "st1", threadId: paused.threadId });
    expect(r.state).toBe("completed");
    expect(r.finalText).toBe("Order 7 is on its way.");
    expect(seen.map((x) => x.body.previous_response_id ?? null)).toEqual([null, "resp_old", null]);
    const retried = seen[2].body.input as Record<string, unknown>[];
    expect(retried.map((i) => i.role ?? i.type)).toEqual(["system", "user", "function_call", "function_call_output"]);
  });

  it("anthropic: messages wire format with tool_use / tool_result", async () => {
    seen.length = 0;
    script.set("/v1/messages", [anthropicToolUse, anthropicText]);
    const runner = new Runner(new InMemoryStore(), providerAdapters({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: `${base}/v1` }), config);
    const r = await runner.run(agent("anthropic:claude-haiku-4-5"), { userMessage: "Where is order 7?", runId: "a1" });
    expect(r.state).toBe("completed");
    expect(r.finalText).toBe("Order 7 shipped.");
    expect(seen[0].headers["x-api-key"]).toBe(KEY);
    expect(seen[0].body).toMatchObject({ model: "claude-haiku-4-5", stream: true, system: [{ type: "text", text: "Be brief." }] });
    const msgs = seen[1].body.messages as { role: string; content: { type: string; tool_use_id?: string }[] }[];
    expect(msgs.at(-1)).toMatchObject({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1" }] });
  });

  it("retries a 500, then falls back from a 401 to an openai-compatible server", async () => {
    seen.length = 0;
    script.set("/v1/responses", [[500, { error: { message: "boom" } }], openaiText("after retry")]);
    let runner = new Runner(new InMemoryStore(), providerAdapters({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${base}/v1` }), config);
    const r1 = await runner.run({ ...agent("openai:gpt-4o"), tools: [] }, { userMessage: "hi", runId: "rt" });
    expect(r1.finalText).toBe("after retry");
    expect(seen.length).toBe(2);

    seen.length = 0;
    script.set("/v1/messages", [[401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }]]);
    script.set("/compat/chat/completions", [openaiText("from the local server")]);
    runner = new Runner(
      new InMemoryStore(),
      providerAdapters({ ANTHROPIC_API_KEY: "bad", ANTHROPIC_BASE_URL: `${base}/v1`, OPENAI_COMPATIBLE_BASE_URL: `${base}/compat` }),
      config,
    );
    const r2 = await runner.run(
      { ...agent("anthropic:claude-haiku-4-5", ["openai-compatible:llama3"]), tools: [] },
      { userMessage: "hi", runId: "fb" },
    );
    expect(r2.state).toBe("completed");
    expect(r2.finalText).toBe("from the local server");
    expect(seen.map((s) => s.path)).toEqual(["/v1/messages", "/compat/chat/completions"]);
    expect(seen[1].body).toMatchObject({ model: "llama3" });
  });

  it("a provider that is not configured is a clear failure, not a crash", async () => {
    const runner = new Runner(new InMemoryStore(), providerAdapters({}), config);
    const r = await runner.run({ ...agent("openai:gpt-4o"), tools: [] }, { userMessage: "hi", runId: "none" });
    expect(r.state).toBe("failed");
    expect(r.error).toMatch(/no adapter for provider openai/);
  });

  it("streams: text deltas arrive as events, in order, before the response is checkpointed", async () => {
    script.set("/compat/chat/completions", [{ turn: { text: "Your order left the warehouse on Monday." }, delayMs: 5 }]);
    const store = new InMemoryStore();
    const runner = new Runner(store, providerAdapters({ OPENAI_COMPATIBLE_BASE_URL: `${base}/compat` }), config);
    const h = runner.runHandle({ ...agent("openai-compatible:llama3"), tools: [] }, { userMessage: "Where?", runId: "st" });
    const seenTypes: string[] = [];
    const deltas: string[] = [];
    for await (const e of h.events) {
      seenTypes.push(e.type === "checkpoint" ? `checkpoint:${String(e.data.phase)}` : e.type);
      if (e.type === "llm_delta") deltas.push(String(e.data.text));
    }
    const r = await h.awaitResult();
    expect(r.finalText).toBe("Your order left the warehouse on Monday.");
    expect(deltas.length).toBe(7);
    expect(deltas.join("")).toBe(r.finalText);
    const firstDelta = seenTypes.indexOf("llm_delta");
    expect(firstDelta).toBeGreaterThan(seenTypes.indexOf("checkpoint:pre_llm"));
    expect(seenTypes.lastIndexOf("llm_delta")).toBeLessThan(seenTypes.indexOf("checkpoint:post_llm"));
  });

  it("a stream cut off midway is retried; nothing of the cut response is stored", async () => {
    seen.length = 0;
    script.set("/compat/chat/completions", [
      { turn: { text: "HALF-WRITTEN answer that never ends" }, cutAfter: 3 },
      { turn: { text: "The whole answer." } },
    ]);
    const store = new InMemoryStore();
    const runner = new Runner(store, providerAdapters({ OPENAI_COMPATIBLE_BASE_URL: `${base}/compat` }), config);
    const r = await runner.run({ ...agent("openai-compatible:llama3"), tools: [] }, { userMessage: "hi", runId: "cut" });
    expect(r.state).toBe("completed");
    expect(r.finalText).toBe("The whole answer.");
    expect(seen.length).toBe(2);
    expect(JSON.stringify(await store.listState("cut", ""))).not.toContain("HALF-WRITTEN");
  });

  it("cancel aborts a slow streaming call within a second and the run ends cancelled at pre_llm", async () => {
    seen.length = 0;
    // 40 words at 250 ms each: ten seconds of streaming if nobody stops it.
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
    script.set("/compat/chat/completions", [{ turn: { text: words }, delayMs: 250 }]);
    const store = new InMemoryStore();
    const runner = new Runner(store, providerAdapters({ OPENAI_COMPATIBLE_BASE_URL: `${base}/compat` }), config);
    const h = runner.runHandle({ ...agent("openai-compatible:llama3"), tools: [] }, { userMessage: "hi", runId: "cx" });
    let cancelledAt = 0;
    for await (const e of h.events) {
      if (e.type === "llm_delta" && !cancelledAt) {
        cancelledAt = Date.now();
        h.cancel();
      }
    }
    const r = await h.awaitResult();
    const tookMs = Date.now() - cancelledAt;
    expect(r.state).toBe("cancelled");
    expect(tookMs).toBeLessThan(1000);
    expect(seen.length).toBe(1); // no retry, no fallback after a cancel
    await new Promise((res) => setTimeout(res, 300));
    expect(seen[0].closedEarly()).toBe(true); // the HTTP request itself was aborted
    const phases = (await store.listState("cx", keys.checkpointPrefix("cx"))).map((e) => parseKey(e.key)?.phase).filter(Boolean);
    expect(phases).not.toContain("post_llm");
    expect(phases).toContain("pre_llm");
    expect(phases.at(-1)).toBe("run_terminal");
  });

  it("structured output: the schema is sent as a JSON response format and the answer lands validated in final_structured", async () => {
    seen.length = 0;
    const outputSchema = z.object({ order: z.string(), shipped: z.boolean() });
    script.set("/v1/responses", [openaiText('{"order":"7","shipped":true}'), openaiText('{"order":"7","shipped":"maybe"}')]);
    const runner = new Runner(new InMemoryStore(), providerAdapters({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${base}/v1` }), config);
    const a = { ...agent("openai:gpt-4o"), tools: [], outputSchema };
    const r = await runner.run(a, { userMessage: "Status of 7?", runId: "so" });
    expect(r.state).toBe("completed");
    expect(r.finalStructured).toEqual({ order: "7", shipped: true });
    expect(seen[0].body.text).toMatchObject({ format: { type: "json_schema", schema: { required: ["order", "shipped"] } } });
    const bad = await runner.run(a, { userMessage: "Status of 7?", runId: "so2" });
    expect(bad.state).toBe("failed");
    expect(bad.error).toMatch(/does not match the output schema at shipped/);
  });
});
