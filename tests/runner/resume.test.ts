// One test per rule of the seed's "Resume behavior", "Effect replay" and "Common failure scenarios",
// asserting the stored records.
import { describe, expect, it } from "vitest";
import {
  AgentCheckpointCorruptionError,
  AgentEffectIntegrityError,
  AgentMismatchError,
  FailpointError,
  checkpointLatestKey,
  approvalIdOf,
  decideApproval,
  keys,
  listCheckpoints,
  InvalidStateTransitionError,
  transition,
  loadLatestCheckpoint,
  legacyChainDigest,
  listApprovals,
  loadSnapshot,
  validateEffects,
} from "@/lib/runner";
import { canonicalJson } from "@/lib/runner/canonical";
import { z } from "zod";
import { type Agent, DemoModel, type DemoScript, InMemoryStore, LeaseLostError, Runner, defineTool } from "@/lib/runner";
import { putRaw } from "../helpers/raw-store";
import { makeWorld } from "./fixtures";

const T = "t1";

async function completedRun() {
  const w = makeWorld({ threshold: 1_000_000 });
  const r = await w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T });
  return { w, r };
}

describe("resume behavior", () => {
  it("a missing checkpoint is AgentCheckpointCorruptionError", async () => {
    const w = makeWorld();
    await expect(w.runner.resume(w.agent, { runId: "nope", threadId: T })).rejects.toBeInstanceOf(AgentCheckpointCorruptionError);
    expect(w.model.calls).toBe(0);
  });

  it.each([
    ["not an object", "[1,2]"],
    ["missing run_id", JSON.stringify({ schema_version: "v1", thread_id: T, phase: "pre_llm", payload: {} })],
    ["missing payload", JSON.stringify({ schema_version: "v1", run_id: "r", thread_id: T, phase: "pre_llm" })],
    ["unknown phase", JSON.stringify({ schema_version: "v1", run_id: "r", thread_id: T, phase: "warp", payload: {} })],
    ["unknown version", JSON.stringify({ schema_version: "v9", run_id: "r", thread_id: T, phase: "pre_llm", payload: {} })],
    ["truncated JSON", '{"schema_version":"v1","run_id":"r"'],
  ])("a malformed latest record (%s) is corruption", async (_n, text) => {
    const { w } = await completedRun();
    await putRaw(w.store, T, checkpointLatestKey("r"), text);
    const calls = w.model.calls;
    await expect(w.runner.resume(w.agent, { runId: "r", threadId: T })).rejects.toBeInstanceOf(AgentCheckpointCorruptionError);
    expect(w.model.calls).toBe(calls);
  });

  it("normalizes legacy records (camelCase, data, version)", async () => {
    const { w, r } = await completedRun();
    const latest = await loadLatestCheckpoint(w.store, T, "r");
    await putRaw(
      w.store,
      T,
      checkpointLatestKey("r"),
      JSON.stringify({
        version: "v1",
        runId: latest.run_id,
        threadId: latest.thread_id,
        step: latest.step,
        phase: latest.phase,
        timestampMs: latest.timestamp_ms,
        data: latest.payload,
      }),
    );
    const again = await w.runner.resume(w.agent, { runId: "r", threadId: T });
    expect(again).toEqual(r);
  });

  it("run_terminal with terminal_result returns the stored result with no re-execution and no write", async () => {
    const { w, r } = await completedRun();
    const calls = w.model.calls;
    const effects = w.effects.length;
    const writes = w.store.writes;
    const again = await w.runner.resume(w.agent, { runId: "r", threadId: T });
    expect(again).toEqual(r);
    expect([w.model.calls, w.effects.length, w.store.writes]).toEqual([calls, effects, writes]);
  });

  it("run_terminal without a readable terminal_result is corruption", async () => {
    const { w } = await completedRun();
    const latest = await loadLatestCheckpoint(w.store, T, "r");
    latest.payload.terminal_result = { runId: 5 };
    await w.store.putState(T, checkpointLatestKey("r"), latest);
    await expect(w.runner.resume(w.agent, { runId: "r", threadId: T })).rejects.toBeInstanceOf(AgentCheckpointCorruptionError);
  });

  it("restores messages, counters, usage, cost and context from the snapshot after a crash", async () => {
    const crashed = makeWorld({ threshold: 1_000_000, config: { failpoint: { at: "step_started", step: 3, action: "throw" } } });
    await expect(
      crashed.runner.run(crashed.agent, { userMessage: "buy", runId: "r", threadId: T, context: { team: "a" } }),
    ).rejects.toBeInstanceOf(FailpointError);
    const runner2 = crashed.restarted();
    const resumed = await runner2.resume(crashed.agent, { runId: "r", threadId: T });
    const { r: uninterrupted } = await completedRun();
    expect(resumed.state).toBe("completed");
    expect(resumed.finalText).toBe(uninterrupted.finalText);
    expect(resumed.usage).toEqual(uninterrupted.usage);
    expect(resumed.totalCostUsd).toBeCloseTo(uninterrupted.totalCostUsd, 12);
    expect(resumed.stateSnapshot.llmCalls).toBe(3);
    expect(resumed.stateSnapshot.toolCalls).toBe(3);
    const msgs = await crashed.store.listState(T, keys.messagePrefix("r"));
    expect(msgs.map((m) => (m.value as { role: string }).role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "tool",
      "assistant",
    ]);
    const snap = (await crashed.store.getState(T, keys.runtime("r"))) as { context: Record<string, unknown> };
    expect(snap.context.team).toBe("a");
  });

  it("a stored pending_llm_response skips the LLM call and runs its tool calls", async () => {
    const w = makeWorld({ threshold: 1_000_000, config: { failpoint: { at: "post_llm", step: 2, action: "throw" } } });
    await expect(w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T })).rejects.toBeInstanceOf(FailpointError);
    expect(w.model.calls).toBe(2);
    const latest = await loadLatestCheckpoint(w.store, T, "r");
    expect(latest.phase).toBe("post_llm");
    const w2runner = w.restarted();
    const r = await w2runner.resume(w.agent, { runId: "r", threadId: T });
    expect(r.state).toBe("completed");
    expect(w.model.calls).toBe(3); // step 2's response was not asked again; only step 3 was
    expect(w.effects.filter((e) => e.tool === "charge")).toHaveLength(2);
  });

  it("an unreadable pending_llm_response is corruption, never a second LLM call", async () => {
    const w = makeWorld({ threshold: 1_000_000, config: { failpoint: { at: "post_llm", step: 2, action: "throw" } } });
    await expect(w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T })).rejects.toBeInstanceOf(FailpointError);
    const snap = (await w.store.getState(T, keys.runtime("r"))) as Record<string, unknown>;
    snap.pending_llm_response = { text: 42, tool_calls: "x" };
    await w.store.putState(T, keys.runtime("r"), snap);
    const writes = w.store.writes;
    const runner2 = w.restarted();
    await expect(runner2.resume(w.agent, { runId: "r", threadId: T })).rejects.toThrow(/pending_llm_response cannot be deserialized/);
    expect(w.model.calls).toBe(2);
    expect(w.store.writes).toBe(writes);
  });

  it("a tampered message log is corruption", async () => {
    const w = makeWorld();
    await w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T });
    await w.store.putState(T, keys.message("r", 1), { role: "user", content: "something else" });
    await expect(w.runner.resume(w.agent, { runId: "r", threadId: T })).rejects.toThrow(/digest/);
  });

  it("log entries are stored as their canonical JSON; a log stored in another key order (an older version) still loads", async () => {
    const w = makeWorld();
    await w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T });
    const before = await loadSnapshot(w.store, T, "r");
    const stored = [
      ...(await w.store.listState(T, keys.messagePrefix("r"))),
      ...(await w.store.listState(T, keys.toolExecutionPrefix("r"))),
    ];
    expect(stored.length).toBeGreaterThan(3);
    for (const e of stored) expect(e.text).toBe(canonicalJson(e.value));
    // Rewritten with every object's keys in reverse order: the same values, other texts.
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : v && typeof v === "object"
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reversed(x)]),
            )
          : v;
    for (const e of stored) await w.store.putState(T, e.key, reversed(e.value));
    const rewritten = await w.store.listState(T, keys.messagePrefix("r"));
    expect(rewritten.some((e) => e.text !== canonicalJson(e.value))).toBe(true);
    const after = await loadSnapshot(w.store, T, "r");
    expect(after.messages.items).toEqual(before.messages.items);
    expect(after.messages.digest).toBe(before.messages.digest);
    expect(after.toolExecutions.digest).toBe(before.toolExecutions.digest);
    // A tampered entry is still caught when the texts are not canonical.
    await w.store.putState(T, keys.message("r", 0), { content: "something else", role: "user" });
    await expect(loadSnapshot(w.store, T, "r")).rejects.toThrow(/message log does not match/);
  });

  it("a log whose digest is a chain (stored before the running hash) loads, resumes, and is checked as strictly", async () => {
    const w = makeWorld();
    const paused = await w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T });
    expect(paused.state).toBe("paused");
    const key = keys.runtime("r");
    const snap = (await w.store.getState(T, key)) as Record<string, { count: number; digest: string }>;
    const texts = async (prefix: string) => (await w.store.listState(T, prefix)).map((e) => e.text as string);
    const chained = {
      ...snap,
      messages: { ...snap.messages, digest: legacyChainDigest((await texts(keys.messagePrefix("r"))).slice(0, snap.messages.count)) },
      tool_executions: {
        ...snap.tool_executions,
        digest: legacyChainDigest((await texts(keys.toolExecutionPrefix("r"))).slice(0, snap.tool_executions.count)),
      },
    };
    expect(chained.messages.digest).not.toBe(snap.messages.digest);
    await w.store.putState(T, key, chained);
    const loaded = await loadSnapshot(w.store, T, "r");
    // Read back with the running hash: the next snapshot written names the digest of today's form.
    expect(loaded.messages.digest).toBe(snap.messages.digest);
    for (const a of await listApprovals(w.store, T, "r"))
      await decideApproval(
        w.store,
        T,
        a.id,
        w.agent.tools.find((t) => t.name === a.tool_name),
        { decision: "approve", by: "rev" },
      );
    expect((await w.restarted().resume(w.agent, { runId: "r", threadId: T })).state).toBe("completed");
    // An altered entry under a chained digest is corruption as before.
    await w.store.putState(T, key, chained);
    await w.store.putState(T, keys.message("r", 0), { content: "something else", role: "user" });
    await expect(loadSnapshot(w.store, T, "r")).rejects.toThrow(/message log does not match/);
  });

  it("resume refuses a different agent", async () => {
    const w = makeWorld();
    await w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T });
    await expect(w.runner.resume({ ...w.agent, name: "other" }, { runId: "r", threadId: T })).rejects.toBeInstanceOf(AgentMismatchError);
    await expect(w.runner.resume({ ...w.agent, tools: w.agent.tools.slice(0, 1) }, { runId: "r", threadId: T })).rejects.toBeInstanceOf(
      AgentMismatchError,
    );
  });

  it("an illegal state move is an error", () => {
    expect(() => transition("completed", "running")).toThrow(InvalidStateTransitionError);
    expect(() => transition("pending", "paused")).toThrow(InvalidStateTransitionError);
    expect(transition("paused", "running")).toBe("running");
  });
});

describe("checkpoints", () => {
  it("writes every phase with its payload and the full snapshot at step_started and post_llm", async () => {
    const { w } = await completedRun();
    const cps = await listCheckpoints(w.store, T, "r");
    expect(cps.map((c) => c.phase)).toEqual([
      "run_started",
      ...Array(2).fill(["step_started", "pre_llm", "post_llm", "pre_tool_batch", "post_tool_batch"]).flat(),
      "step_started",
      "pre_llm",
      "post_llm",
      "run_terminal",
    ]);
    const by = (p: string) => cps.find((c) => c.phase === p)!.payload;
    expect(by("run_started")).toMatchObject({ agent_name: "shop", resumed: false });
    expect(by("step_started")).toMatchObject({ state: "running", message_count: 2 });
    expect(by("pre_llm")).toMatchObject({ model: "demo:shop", provider: "demo", message_count: 2 });
    expect(Object.keys(by("post_llm"))).toEqual(
      expect.arrayContaining([
        "model",
        "provider",
        "finish_reason",
        "tool_call_count",
        "session_token",
        "checkpoint_token",
        "total_cost_usd",
      ]),
    );
    expect(by("pre_tool_batch")).toEqual({ tool_call_count: 1 });
    expect(by("post_tool_batch")).toMatchObject({ tool_calls_total: 1, tool_failures: 0 });
    expect(Object.keys(by("run_terminal"))).toEqual(
      expect.arrayContaining(["state", "final_text", "requested_model", "normalized_model", "provider_adapter", "terminal_result"]),
    );
    const snap = by("post_llm").runtime_snapshot as Record<string, unknown>;
    for (const k of [
      "messages",
      "step",
      "state",
      "context",
      "llm_calls",
      "tool_calls",
      "started_at_s",
      "usage",
      "total_cost_usd",
      "session_token",
      "checkpoint_token",
      "pending_llm_response",
      "tool_executions",
      "subagent_executions",
      "requested_model",
      "normalized_model",
      "provider_adapter",
      "final_text",
      "final_structured",
      "replayed_effect_count",
    ]) {
      expect(snap).toHaveProperty(k);
    }
    expect(snap.pending_llm_response).not.toBeNull();
    for (const c of cps) expect(c).toMatchObject({ schema_version: "v1", run_id: "r", thread_id: T });
    const ts = cps.map((c) => c.timestamp_ms);
    expect([...ts].sort((a, b) => a - b)).toEqual(ts);
  });

  it("a failed write surfaces: the run stops at its last durable checkpoint and is not reported saved", async () => {
    const w = makeWorld({ threshold: 1_000_000 });
    // The store fails from the batch that carries step 2's post_llm record onwards.
    let broken = false;
    const put = w.store.putStates.bind(w.store);
    const putOne = w.store.putState.bind(w.store);
    w.store.putStates = async (t, e) => {
      broken ||= e.some((x) => /:000002:\d+:post_llm$/.test(x.key));
      if (broken) throw new Error("disk full");
      return put(t, e);
    };
    w.store.putState = async (t, k, v) => {
      if (broken) throw new Error("disk full");
      return putOne(t, k, v);
    };
    const events: string[] = [];
    const h = w.runner.runHandle(w.agent, { userMessage: "buy", runId: "r", threadId: T });
    const collect = (async () => {
      for await (const e of h.events) events.push(`${e.type}:${e.message}`);
    })();
    const r = await h.awaitResult();
    await collect;
    expect(r.state).toBe("failed");
    expect(r.error).toMatch(/CheckpointWriteError: Checkpoint write failed: disk full/);
    expect(events.some((e) => e.startsWith("warning:checkpoint write failed"))).toBe(true);
    const latest = await loadLatestCheckpoint(w.store, T, "r");
    expect(latest.phase).not.toBe("run_terminal");
    // Nothing of step 2 beyond its start was saved, and no charge ran.
    expect(w.effects.filter((e) => e.tool === "charge")).toHaveLength(0);
    // Once the store is back, the run resumes from what was durable and completes.
    broken = false;
    w.store.putStates = put;
    const again = await w.runner.resume(w.agent, { runId: "r", threadId: T });
    expect(again.state).toBe("completed");
    expect(w.effects.filter((e) => e.tool === "charge").length).toBe(2);
  });
});

describe("effect replay", () => {
  it("stores input/output hashes per executed call and replays a matching one", async () => {
    const w = makeWorld({ threshold: 1_000_000, config: { failpoint: { at: "post_tool_batch", step: 2, action: "throw" } } });
    await expect(w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T })).rejects.toBeInstanceOf(FailpointError);
    const effects = await validateEffects(w.store, T, "r");
    expect(effects.map((e) => keys.effect(e.run_id, e.step, e.tool_call_id))).toEqual([
      "effect:r:000001:c1",
      "effect:r:000002:c2",
      "effect:r:000002:c3",
    ]);
    for (const e of effects) expect(e).toMatchObject({ success: true, input_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // The crash hit after post_tool_batch was written but the runtime snapshot is the one from before.
    const runner2 = w.restarted();
    const r = await runner2.resume(w.agent, { runId: "r", threadId: T });
    expect(r.state).toBe("completed");
    expect(w.effects.filter((e) => e.tool === "charge")).toHaveLength(2);
  });

  it("the tool_executed failpoint opens the documented window: the tool ran, its effect was not written", async () => {
    const w = makeWorld({ threshold: 1_000_000, config: { failpoint: { at: "tool_executed", step: 2, action: "throw" } } });
    await expect(w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T })).rejects.toBeInstanceOf(FailpointError);
    const ran = (id: string) => w.effects.filter((e) => e.toolCallId === id).length;
    // The first charge to return hit the failpoint (the batch's two calls run in parallel).
    const first = w.effects.find((e) => e.tool === "charge")!.toolCallId;
    expect(ran(first)).toBe(1);
    expect((await w.store.listState(T, keys.effectPrefix("r"))).map((e) => e.key)).not.toContain(keys.effect("r", 2, first));
    const r = await w.restarted().resume(w.agent, { runId: "r", threadId: T });
    expect(r.state).toBe("completed");
    // No effect recorded it, so it ran again; the lookup of step 1 was not repeated.
    expect(ran(first)).toBe(2);
    expect(ran("c1")).toBe(1);
  });

  it("a call that fails the step lets the tools in flight record their effects and starts no new one", async () => {
    const ran: string[] = [];
    let lost = true;
    const tool = (name: string, ms: number) =>
      defineTool({
        name,
        description: name,
        schema: z.object({}),
        async execute() {
          await new Promise((r) => setTimeout(r, ms));
          ran.push(name);
          // As a worker learns mid-call that its lease is gone: the step fails, not the tool.
          if (name === "fast" && lost) throw new LeaseLostError("lease lost");
          return { ok: name };
        },
      });
    const script: DemoScript = (m) =>
      m.some((x) => x.role === "assistant")
        ? { text: "done" }
        : { text: "three at once", toolCalls: ["fast", "slow", "later"].map((name) => ({ id: name, name, args: {} })) };
    const agent: Agent = {
      name: "batch",
      model: "demo:batch",
      instructions: "",
      tools: [tool("fast", 0), tool("slow", 40), tool("later", 0)],
      failSafe: { maxParallelTools: 2 },
    };
    const store = new InMemoryStore();
    const runner = new Runner(store, { demo: new DemoModel({ batch: script }) }, { failpoint: undefined });
    await expect(runner.run(agent, { userMessage: "go", runId: "r", threadId: T })).rejects.toBeInstanceOf(LeaseLostError);
    // slow was in flight and finished with its effect stored; later never started.
    expect(ran).toEqual(["fast", "slow"]);
    expect((await store.listState(T, keys.effectPrefix("r"))).map((e) => e.key)).toEqual([keys.effect("r", 1, "slow")]);
    lost = false;
    const r = await runner.resume(agent, { runId: "r", threadId: T });
    expect(r.state).toBe("completed");
    expect(ran.sort()).toEqual(["fast", "fast", "later", "slow"]);
  });

  it("counts replays in replayed_effect_count", async () => {
    const w = makeWorld({ threshold: 1_000_000, config: { failpoint: { at: "pre_tool_batch", step: 2, action: "throw" } } });
    await expect(w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T })).rejects.toBeInstanceOf(FailpointError);
    // Execute c2 "in a previous life": store its effect as if the crash came right after it.
    const { makeEffect } = await import("@/lib/runner");
    await w.store.putState(
      T,
      keys.effect("r", 2, "c2"),
      makeEffect({
        run_id: "r",
        step: 2,
        tool_call_id: "c2",
        tool_name: "charge",
        args: { amount: 7000 },
        output: { charged: 7000 },
        error: null,
        success: true,
        timestamp_ms: 1,
      }),
    );
    const runner2 = w.restarted();
    const r = await runner2.resume(w.agent, { runId: "r", threadId: T });
    expect(r.stateSnapshot.replayedEffectCount).toBe(1);
    expect(w.effects.filter((e) => e.tool === "charge").map((e) => e.toolCallId)).toEqual(["c3"]);
    expect(r.toolExecutions.find((t) => t.toolCallId === "c2")).toMatchObject({ replayed: true, output: { charged: 7000 } });
  });

  it("a different input hash for the same tool call id is an integrity error", async () => {
    const w = makeWorld({ threshold: 1_000_000, config: { failpoint: { at: "pre_tool_batch", step: 2, action: "throw" } } });
    await expect(w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T })).rejects.toBeInstanceOf(FailpointError);
    const { makeEffect } = await import("@/lib/runner");
    await w.store.putState(
      T,
      keys.effect("r", 2, "c2"),
      makeEffect({
        run_id: "r",
        step: 2,
        tool_call_id: "c2",
        tool_name: "charge",
        args: { amount: 1 },
        output: { charged: 1 },
        error: null,
        success: true,
        timestamp_ms: 1,
      }),
    );
    const runner2 = w.restarted();
    const r = await runner2.resume(w.agent, { runId: "r", threadId: T });
    expect(r.state).toBe("failed");
    expect(r.error).toMatch(new RegExp(AgentEffectIntegrityError.name));
    expect(w.effects.filter((e) => e.tool === "charge")).toHaveLength(0);
  });
});

describe("effects read on resume", () => {
  // Crash at post_tool_batch of step 2: step 1's effect (the lookup) and step 2's (two charges) are stored.
  async function crashed() {
    const w = makeWorld({ threshold: 1_000_000, config: { failpoint: { at: "post_tool_batch", step: 2, action: "throw" } } });
    await expect(w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T })).rejects.toBeInstanceOf(FailpointError);
    const plant = (key: string, text: string) => putRaw(w.store, T, key, text);
    let writes = 0;
    const put = w.store.putState.bind(w.store);
    w.store.putState = (...a) => {
      writes++;
      return put(...a);
    };
    const putMany = w.store.putStates!.bind(w.store);
    w.store.putStates = (...a) => {
      writes++;
      return putMany(...a);
    };
    return { w, plant, writes: () => writes };
  }

  it("a malformed effect of the step resume re-enters stops it before any write or tool call", async () => {
    const { w, plant, writes } = await crashed();
    await plant(keys.effect("r", 2, "c2"), '{"schema_version":"v1","run_id":"r"}');
    await expect(w.restarted().resume(w.agent, { runId: "r", threadId: T })).rejects.toBeInstanceOf(AgentCheckpointCorruptionError);
    expect(writes()).toBe(0);
    expect(w.effects.filter((e) => e.tool === "charge")).toHaveLength(2);
  });

  it("an effect of an earlier step is not read: resume of a long run validates one step's effects, not all", async () => {
    const { w, plant } = await crashed();
    await plant(keys.effect("r", 1, "c1"), '{"schema_version":"v1","run_id":"r"}');
    const r = await w.restarted().resume(w.agent, { runId: "r", threadId: T });
    expect(r.state).toBe("completed");
    // Nothing ran twice: step 2's charges replayed from their effects.
    expect(w.effects.filter((e) => e.tool === "charge")).toHaveLength(2);
  });
});

describe("durable approvals", () => {
  it("stores the request, ends the execution paused, and binds the approved (edited) args", async () => {
    const w = makeWorld();
    const r1 = await w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T });
    expect(r1.state).toBe("paused");
    const rec = (await w.store.getState(T, keys.approval("r", 2, "c2"))) as Record<string, unknown>;
    expect(rec).toMatchObject({
      status: "pending",
      tool_name: "charge",
      args: { amount: 7000 },
      step: 2,
      reason: "big charge",
      input_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(typeof rec.deadline_ms).toBe("number");
    const bad = await decideApproval(w.store, T, await approvalIdOf(w.store, T, "r", "c2"), w.agent.tools[1], {
      by: "rev",
      decision: "approve",
      args: { amount: -5 },
    }).catch((e) => e);
    expect(bad.code).toBe("invalid_args");
    await decideApproval(w.store, T, await approvalIdOf(w.store, T, "r", "c2"), w.agent.tools[1], {
      by: "rev",
      decision: "approve",
      args: { amount: 6000, note: "reduced" },
    });
    await expect(
      decideApproval(w.store, T, await approvalIdOf(w.store, T, "r", "c2"), w.agent.tools[1], { by: "rev2", decision: "approve" }),
    ).rejects.toMatchObject({ code: "already_decided" });
    const calls = w.model.calls;
    const r2 = await w.runner.resume(w.agent, { runId: "r", threadId: T });
    expect(r2.state).toBe("completed");
    expect(w.model.calls).toBe(calls + 1); // only the final step: step 2 is not asked again
    expect(w.effects.find((e) => e.toolCallId === "c2")?.args).toEqual({ amount: 6000, note: "reduced" });
    expect(r2.toolExecutions.find((t) => t.toolCallId === "c2")?.approvedBy).toEqual(["rev"]);
    const cps = await listCheckpoints(w.store, T, "r");
    expect(cps.filter((c) => c.phase === "paused").map((c) => c.payload.approval_id)).toEqual(["r:2:c2"]);
    const resumed = cps.filter((c) => c.phase === "resumed");
    expect(resumed).toHaveLength(1);
    expect(resumed[0].payload.decisions).toEqual([
      { approval_id: "r:2:c2", tool_name: "charge", status: "approved", decided_by: ["rev"], edited: true },
    ]);
  });

  it("a rejection's reason is the tool result the model sees; the tool never runs", async () => {
    const w = makeWorld();
    await w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T });
    await expect(
      decideApproval(w.store, T, await approvalIdOf(w.store, T, "r", "c2"), w.agent.tools[1], { by: "rev", decision: "reject" }),
    ).rejects.toMatchObject({ field: "reason" });
    await decideApproval(w.store, T, await approvalIdOf(w.store, T, "r", "c2"), w.agent.tools[1], {
      by: "rev",
      decision: "reject",
      reason: "too much",
    });
    const r = await w.runner.resume(w.agent, { runId: "r", threadId: T });
    expect(r.state).toBe("completed");
    expect(r.finalText).toContain("Approval denied: too much");
    expect(w.effects.some((e) => e.toolCallId === "c2")).toBe(false);
  });

  it("several calls in one step wait independently; decisions come one by one", async () => {
    const w = makeWorld({ threshold: 5 });
    const r1 = await w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T });
    expect(r1.pendingApprovals).toEqual(["r:2:c2", "r:2:c3"]);
    await decideApproval(w.store, T, await approvalIdOf(w.store, T, "r", "c2"), w.agent.tools[1], { by: "rev", decision: "approve" });
    const r2 = await w.runner.resume(w.agent, { runId: "r", threadId: T });
    expect(r2.state).toBe("paused");
    expect(r2.pendingApprovals).toEqual(["r:2:c3"]);
    expect(w.effects.filter((e) => e.tool === "charge").map((e) => e.toolCallId)).toEqual(["c2"]);
    await decideApproval(w.store, T, await approvalIdOf(w.store, T, "r", "c3"), w.agent.tools[1], { by: "rev", decision: "approve" });
    const r3 = await w.runner.resume(w.agent, { runId: "r", threadId: T });
    expect(r3.state).toBe("completed");
    expect(w.effects.filter((e) => e.tool === "charge").map((e) => e.toolCallId)).toEqual(["c2", "c3"]);
    // c2 ran during the second execution and is replayed (not re-run) in the third.
    expect(r3.stateSnapshot.replayedEffectCount).toBe(1);
  });

  it("past its deadline an approval takes the fallback (deny by default); paused time is not wall time", async () => {
    const w = makeWorld({ config: { approvalTimeoutS: 0.05 } });
    const agent = { ...w.agent, failSafe: { maxWallTimeS: 0.5 } };
    await w.runner.run(agent, { userMessage: "buy", runId: "r", threadId: T });
    await new Promise((r) => setTimeout(r, 700));
    const r = await w.runner.resume(agent, { runId: "r", threadId: T });
    expect(r.state).toBe("completed");
    expect(r.finalText).toContain("Approval denied: Approval deadline passed");
    const rec = (await w.store.getState(T, keys.approval("r", 2, "c2"))) as { status: string };
    expect(rec.status).toBe("expired");
  });

  it("the active time before a pause is stored once: a resume's wall-time budget does not count it twice", async () => {
    const clock = { ms: 1_000_000 };
    const now = Date.now;
    Date.now = () => clock.ms;
    try {
      const w = makeWorld();
      // Looking something up takes 10 s; the charge of step 2 then waits for a reviewer.
      w.agent.tools = w.agent.tools.map((t) =>
        t.name === "lookup"
          ? {
              ...t,
              execute: async (a: unknown, ctx: Parameters<typeof t.execute>[1]) => {
                clock.ms += 10_000;
                return t.execute(a, ctx);
              },
            }
          : t,
      );
      const paused = await w.runner.run(w.agent, { userMessage: "buy", runId: "r", threadId: T });
      expect(paused.state).toBe("paused");
      expect(paused.stateSnapshot.elapsedS).toBe(10);
      expect(((await w.store.getState(T, keys.runtime("r"))) as { active_elapsed_s: number }).active_elapsed_s).toBe(10);
      clock.ms += 3_600_000; // waiting for the reviewer is not active time
      await decideApproval(w.store, T, await approvalIdOf(w.store, T, "r", "c2"), undefined, { by: "rev", decision: "approve" });
      const done = await w.restarted().resume(w.agent, { runId: "r", threadId: T });
      expect(done.state).toBe("completed");
      expect(done.stateSnapshot.elapsedS).toBe(10);
    } finally {
      Date.now = now;
    }
  });
});
