// The AI SDK adapters against a local HTTP server that speaks each provider's wire format.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Agent, InMemoryStore, Runner, defineTool } from "@/lib/runner";
import { providerAdapters } from "@/lib/models/ai-sdk";

type Seen = { path: string; headers: IncomingMessage["headers"]; body: Record<string, unknown> };
let server: Server;
let base: string;
const seen: Seen[] = [];
// Per path, a queue of [status, body] to answer with.
const script = new Map<string, [number, unknown][]>();

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    seen.push({ path: req.url ?? "", headers: req.headers, body: JSON.parse(text || "{}") });
    const next = script.get(req.url ?? "")?.shift() ?? [404, { error: { message: "no script" } }];
    res.writeHead(next[0], { "content-type": "application/json" });
    res.end(JSON.stringify(next[1]));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const openaiToolCall = {
  id: "c1",
  object: "chat.completion",
  created: 1,
  model: "gpt-4o",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"order 7"}' } }],
      },
      finish_reason: "tool_calls",
    },
  ],
  usage: { prompt_tokens: 20, completion_tokens: 7, total_tokens: 27 },
};
const openaiText = (t: string) => ({
  id: "c2",
  object: "chat.completion",
  created: 2,
  model: "gpt-4o",
  choices: [{ index: 0, message: { role: "assistant", content: t }, finish_reason: "stop" }],
  usage: { prompt_tokens: 40, completion_tokens: 5, total_tokens: 45 },
});
const anthropicToolUse = {
  id: "m1",
  type: "message",
  role: "assistant",
  model: "claude-haiku-4-5",
  content: [
    { type: "text", text: "Let me look." },
    { type: "tool_use", id: "toolu_1", name: "lookup", input: { q: "order 7" } },
  ],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: { input_tokens: 30, output_tokens: 9 },
};
const anthropicText = {
  id: "m2",
  type: "message",
  role: "assistant",
  model: "claude-haiku-4-5",
  content: [{ type: "text", text: "Order 7 shipped." }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 50, output_tokens: 4 },
};

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
  it("openai: chat completions wire format, tool call ids carried into tool messages, key never stored", async () => {
    seen.length = 0;
    script.set("/v1/chat/completions", [
      [200, openaiToolCall],
      [200, openaiText("Order 7 is on its way.")],
    ]);
    const store = new InMemoryStore();
    const runner = new Runner(store, providerAdapters({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${base}/v1` }), config);
    const r = await runner.run(agent("openai:gpt-4o"), { userMessage: "Where is order 7?", runId: "o1" });
    expect(r.state).toBe("completed");
    expect(r.finalText).toBe("Order 7 is on its way.");
    expect(r.usage).toEqual({ inputTokens: 60, outputTokens: 12, totalTokens: 72 });
    expect(r.totalCostUsd).toBeCloseTo((60 * 2.5 + 12 * 10) / 1e6, 12);
    expect(seen[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0].body).toMatchObject({ model: "gpt-4o", tools: [{ type: "function", function: { name: "lookup" } }] });
    const second = seen[1].body.messages as Record<string, unknown>[];
    expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(second[3]).toMatchObject({ tool_call_id: "call_1", content: '{"found":"order 7"}' });
    const dump = JSON.stringify(await store.listState("o1", ""));
    expect(dump).not.toContain(KEY);
  });

  it("anthropic: messages wire format with tool_use / tool_result", async () => {
    seen.length = 0;
    script.set("/v1/messages", [
      [200, anthropicToolUse],
      [200, anthropicText],
    ]);
    const runner = new Runner(new InMemoryStore(), providerAdapters({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: `${base}/v1` }), config);
    const r = await runner.run(agent("anthropic:claude-haiku-4-5"), { userMessage: "Where is order 7?", runId: "a1" });
    expect(r.state).toBe("completed");
    expect(r.finalText).toBe("Order 7 shipped.");
    expect(seen[0].headers["x-api-key"]).toBe(KEY);
    expect(seen[0].body).toMatchObject({ model: "claude-haiku-4-5", system: [{ type: "text", text: "Be brief." }] });
    const msgs = seen[1].body.messages as { role: string; content: { type: string; tool_use_id?: string }[] }[];
    expect(msgs.at(-1)).toMatchObject({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1" }] });
  });

  it("retries a 500, then falls back from a 401 to an openai-compatible server", async () => {
    seen.length = 0;
    script.set("/v1/chat/completions", [
      [500, { error: { message: "boom" } }],
      [200, openaiText("after retry")],
    ]);
    let runner = new Runner(new InMemoryStore(), providerAdapters({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${base}/v1` }), config);
    const r1 = await runner.run({ ...agent("openai:gpt-4o"), tools: [] }, { userMessage: "hi", runId: "rt" });
    expect(r1.finalText).toBe("after retry");
    expect(seen.length).toBe(2);

    seen.length = 0;
    script.set("/v1/messages", [[401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }]]);
    script.set("/compat/chat/completions", [[200, openaiText("from the local server")]]);
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
});
