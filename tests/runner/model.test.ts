import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  InMemoryStore,
  ModelCallError,
  type ModelAdapter,
  type LlmRequest,
  Runner,
  callWithFallback,
  costUsd,
  defineTool,
  resolveModel,
  keys,
  loadLatestCheckpoint,
  listCheckpoints,
} from "@/lib/runner";

const ok = (text: string, extra: Partial<{ session_token: string }> = {}) => ({
  text,
  tool_calls: [],
  finish_reason: "stop" as const,
  usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
  session_token: extra.session_token ?? null,
  checkpoint_token: null,
  structured: null,
});

class Flaky implements ModelAdapter {
  readonly requests: LlmRequest[] = [];
  constructor(
    readonly provider: string,
    private failures: (ModelCallError | null)[],
    private text = "hi",
  ) {}
  async generate(req: LlmRequest) {
    this.requests.push(req);
    const f = this.failures.shift();
    if (f) throw f;
    return ok(this.text, { session_token: "sess-2" });
  }
}

const noSleep = { maxRetries: 2, baseDelayMs: 1, sleep: async () => undefined };
const req = { messages: [], tools: [], sessionToken: "stale", checkpointToken: "cp", context: {} };

describe("models", () => {
  it("normalizes model strings", () => {
    expect(resolveModel("openai:gpt-4o")).toMatchObject({ provider: "openai", model: "gpt-4o", normalized: "openai:gpt-4o" });
    expect(resolveModel("gpt-4o-mini")).toMatchObject({ provider: "openai", normalized: "openai:gpt-4o-mini" });
    expect(resolveModel("claude-sonnet-4-5")).toMatchObject({ provider: "anthropic" });
    expect(resolveModel("OpenAI_Compatible:llama3")).toMatchObject({ provider: "openai-compatible", model: "llama3" });
    expect(() => resolveModel("openai:")).toThrow(ModelCallError);
    expect(costUsd("openai:gpt-4o", 1_000_000, 1_000_000)).toBeCloseTo(12.5);
    expect(costUsd("unknown:x", 1000, 1000)).toBe(0);
  });

  it("retries a retryable error with backoff; a stale session token is dropped on the retry", async () => {
    const a = new Flaky("openai", [new ModelCallError("session expired", true, 400)]);
    const delays: number[] = [];
    const out = await callWithFallback({ openai: a }, ["openai:gpt-4o"], req, { ...noSleep, sleep: async (ms) => void delays.push(ms) });
    expect(out.attempts).toBe(2);
    expect(a.requests.map((r) => r.sessionToken)).toEqual(["stale", null]);
    expect(delays).toEqual([1]);
    expect(out.response.session_token).toBe("sess-2");
  });

  it("falls through the fallback chain after non-retryable errors and exhausted retries", async () => {
    const primary = new Flaky("openai", [new ModelCallError("bad key", false, 401)]);
    const second = new Flaky("anthropic", [
      new ModelCallError("overloaded", true),
      new ModelCallError("overloaded", true),
      new ModelCallError("overloaded", true),
    ]);
    const third = new Flaky("openai-compatible", [], "from local");
    const out = await callWithFallback(
      { openai: primary, anthropic: second, "openai-compatible": third },
      ["openai:gpt-4o", "anthropic:claude-haiku-4-5", "openai-compatible:llama"],
      { ...req, sessionToken: null, checkpointToken: null },
      noSleep,
    );
    expect(out.response.text).toBe("from local");
    expect(out.resolved.normalized).toBe("openai-compatible:llama");
    expect([primary.requests.length, second.requests.length, third.requests.length]).toEqual([1, 3, 1]);
    await expect(
      callWithFallback(
        { openai: new Flaky("openai", [new ModelCallError("no", false)]) },
        ["openai:x"],
        { ...req, sessionToken: null, checkpointToken: null },
        noSleep,
      ),
    ).rejects.toThrow(/All models failed/);
  });

  it("a non-retryable error while tokens were sent is retried once without them (a stale token), then falls back", async () => {
    const stale = new Flaky("openai", [new ModelCallError("previous response not found", false, 400)], "without the token");
    const out = await callWithFallback({ openai: stale }, ["openai:gpt-4o"], req, noSleep);
    expect(out.response.text).toBe("without the token");
    expect(stale.requests.map((r) => [r.sessionToken, r.checkpointToken])).toEqual([
      ["stale", "cp"],
      [null, null],
    ]);
    const twice = new Flaky("openai", [new ModelCallError("bad request", false, 400), new ModelCallError("bad request", false, 400)]);
    const next = new Flaky("anthropic", [], "fallback");
    const out2 = await callWithFallback({ openai: twice, anthropic: next }, ["openai:gpt-4o", "anthropic:claude-haiku-4-5"], req, noSleep);
    expect(out2.response.text).toBe("fallback");
    expect(twice.requests).toHaveLength(2); // once with the tokens, once without: then the chain goes on
  });

  it("a run whose models all fail ends failed with the reason, recorded in run_terminal", async () => {
    const store = new InMemoryStore();
    const runner = new Runner(
      store,
      { openai: new Flaky("openai", Array(5).fill(new ModelCallError("down", true))) },
      { retry: noSleep, failpoint: undefined },
    );
    const r = await runner.run({ name: "a", model: "openai:gpt-4o", instructions: "", tools: [] }, { userMessage: "x", runId: "f1" });
    expect(r.state).toBe("failed");
    expect(r.error).toMatch(/All models failed: openai:gpt-4o: down/);
    const cps = await listCheckpoints(store, "f1", "f1");
    expect(cps.at(-1)).toMatchObject({ phase: "run_terminal", payload: { state: "failed" } });
  });

  it("cancel stops a running run at the next boundary with a terminal record", async () => {
    const store = new InMemoryStore();
    let handle: ReturnType<Runner["runHandle"]>;
    const tool = defineTool({
      name: "t",
      description: "",
      schema: z.object({}),
      async execute() {
        handle.cancel();
        return "ok";
      },
    });
    const model: ModelAdapter = {
      provider: "demo",
      generate: async () => ({ ...ok(""), tool_calls: [{ id: "c", name: "t", args: {} }], finish_reason: "tool_calls" as const }),
    };
    const runner = new Runner(store, { demo: model }, { failpoint: undefined });
    handle = runner.runHandle({ name: "loop", model: "demo:x", instructions: "", tools: [tool] }, { userMessage: "go", runId: "c1" });
    const r = await handle.awaitResult();
    expect(r.state).toBe("cancelled");
    expect(r.stateSnapshot.step).toBe(1);
    const latest = await loadLatestCheckpoint(store, "c1", "c1");
    expect(latest.phase).toBe("run_terminal");
    expect(await store.getState("c1", keys.runtime("c1"))).toMatchObject({ state: "cancelled" });
  });
});
