// Checkpoint and effect records in storage v2 (lib/runner/record-codec.ts): windows of deltas, a whole
// record first. Every record reads back exactly as it was written (its JSON, to the byte), across windows
// and executions; a fork from a delta in the middle of its window continues from that checkpoint's
// snapshot; plain records of earlier versions still read; a damaged record is corruption named by its key.
import { describe, expect, it } from "vitest";
import {
  AgentCheckpointCorruptionError,
  type CheckpointRecord,
  DemoModel,
  FailpointError,
  InMemoryStore,
  type MemoryStore,
  Runner,
  type StateEntry,
  WINDOW_STEPS,
  checkpointLatestKey,
  keys,
  listCheckpoints,
  loadLatestCheckpoint,
  prepareFork,
  prepareRetry,
  validateEffects,
} from "@/lib/runner";
import { StoredCheckpoint } from "@/lib/runner/record-codec";
import { countingAgent, countingModel } from "../../bench/bench-agent";
import { putRaw } from "../helpers/raw-store";

/** A store that keeps the JSON of each record as the runner handed it, before its storage encoding. */
function recording(store = new InMemoryStore()) {
  const written = new Map<string, string>();
  const wrapped: MemoryStore = Object.create(store);
  wrapped.putStates = async (t: string, entries: StateEntry[]) => {
    for (const e of entries)
      written.set(e.key, JSON.stringify(e.value instanceof StoredCheckpoint ? e.value.record : { ...(e.value as object) }));
    await store.putStates(t, entries);
  };
  return { store, wrapped, written };
}

async function counted(steps: number, runId = "r", threadId = runId) {
  const r = recording();
  const result = await new Runner(r.wrapped, { demo: countingModel(steps) }).run(countingAgent("bench", steps), {
    userMessage: "go",
    runId,
    threadId,
  });
  expect(result.state).toBe("completed");
  return r;
}

const keyOf = (c: CheckpointRecord) => keys.checkpoint(c.run_id, c.step, c.seq, c.phase);

async function expectAsWritten(store: MemoryStore, written: Map<string, string>, threadId: string, runId: string) {
  const cps = await listCheckpoints(store, threadId, runId);
  expect(cps.length).toBeGreaterThan(0);
  for (const c of cps) expect(JSON.stringify(c), keyOf(c)).toBe(written.get(keyOf(c)));
  expect(JSON.stringify(await loadLatestCheckpoint(store, threadId, runId))).toBe(written.get(checkpointLatestKey(runId)));
  for (const e of await validateEffects(store, threadId, runId))
    expect(e).toEqual(JSON.parse(written.get(keys.effect(runId, e.step, e.tool_call_id))!));
  return cps;
}

describe("stored checkpoint records", () => {
  it("read back exactly as written, across windows, stored as deltas after each window's first", async () => {
    const { store, written } = await counted(2 * WINDOW_STEPS + 3, "r", "T");
    const cps = await expectAsWritten(store, written, "T", "r");
    const stored = await store.listState("T", "checkpoint:r:0");
    const whole = stored.filter((e) => (e.value as { k?: number }).k === 1).map((e) => e.key);
    // The first record of each window of steps, and the terminal record.
    const firsts = [0, 1, WINDOW_STEPS, 2 * WINDOW_STEPS].map((step) => keyOf(cps.find((c) => c.step === step)!));
    expect(whole).toEqual([...new Set([firsts[0], ...firsts.slice(2), keyOf(cps.at(-1)!)])]);
    expect(whole).not.toContain(firsts[1]);
    expect(stored.every((e) => (e.value as { v?: number }).v === 2)).toBe(true);
  });

  it("a 200-step run stores at most 0.35 MB (1.06 MB plain)", async () => {
    const runId = "bench-sqlite-200-1796611647940"; // the bench's id length: ids are in every key
    const { store } = await counted(200, runId);
    const bytes = (await store.listState(runId, "")).reduce((n, e) => n + Buffer.byteLength(e.key) + Buffer.byteLength(e.text ?? ""), 0);
    expect(bytes / 1048576).toBeLessThanOrEqual(0.35);
  }, 30_000);

  it("an execution resumed after a crash starts a window of its own; every record reads back", async () => {
    const r = recording();
    const agent = countingAgent("bench", 30);
    const crashing = new Runner(r.wrapped, { demo: countingModel(30) }, { failpoint: { at: "post_llm", step: 21, action: "throw" } });
    await expect(crashing.run(agent, { userMessage: "go", runId: "r" })).rejects.toBeInstanceOf(FailpointError);
    const resumed = await new Runner(r.wrapped, { demo: countingModel(30) }).resume(agent, { runId: "r", threadId: "r" });
    expect(resumed.state).toBe("completed");
    const cps = await expectAsWritten(r.store, r.written, "r", "r");
    const again = cps.find((c) => c.phase === "run_started" && c.payload.resumed === true)!;
    expect(again.step).toBe(21);
    expect((await r.store.getState("r", keyOf(again))) as { k?: number }).toMatchObject({ k: 1 });
  });

  it("a failed run retried from its last good checkpoint reads back, the copy prepareRetry writes included", async () => {
    const r = recording();
    const agent = countingAgent("bench", 12);
    let down = true;
    const flaky = new DemoModel({
      bench: (m) => {
        const turn = m.filter((x) => x.role === "assistant").length + 1;
        if (turn === 7 && down) throw new Error("model unavailable");
        return turn <= 12 ? { text: `step ${turn}`, toolCalls: [{ id: `t${turn}`, name: "tick", args: { n: turn } }] } : { text: "done" };
      },
    });
    const config = { retry: { maxRetries: 0, baseDelayMs: 0 } };
    expect((await new Runner(r.wrapped, { demo: flaky }, config).run(agent, { userMessage: "go", runId: "r" })).state).toBe("failed");
    await prepareRetry(r.wrapped, "r", "r");
    down = false;
    expect((await new Runner(r.wrapped, { demo: flaky }, config).resume(agent, { runId: "r", threadId: "r" })).state).toBe("completed");
    const cps = await listCheckpoints(r.store, "r", "r");
    for (const c of cps) {
      const w = r.written.get(keyOf(c));
      if (w !== undefined) expect(JSON.stringify(c), keyOf(c)).toBe(w);
    }
    // Two terminal records (failed, completed), the retry's copy, and no seq twice.
    expect(cps.filter((c) => c.phase === "run_terminal").map((c) => (c.payload.terminal_result as { state: string }).state)).toEqual([
      "failed",
      "completed",
    ]);
    expect(cps.some((c) => c.payload.retry !== undefined)).toBe(true);
    expect(new Set(cps.map((c) => c.seq)).size).toBe(cps.length);
  });

  it("a fork from a delta in the middle of its window continues from that checkpoint's snapshot", async () => {
    const { store, written } = await counted(12);
    const stored = await store.listState("r", "checkpoint:");
    const mid = stored.find((e) => /:000007:\d+:post_llm$/.test(e.key))!;
    expect((mid.value as { k?: number }).k).toBeUndefined();
    const seq = Number(mid.key.split(":")[3]);
    const expected = (JSON.parse(written.get(mid.key)!) as CheckpointRecord).payload.runtime_snapshot as Record<string, unknown>;
    expect(expected.step).toBe(7);
    const agent = countingAgent("bench", 12);
    await prepareFork(store, { threadId: "r", runId: "r", seq, newRunId: "f", agent });
    const forkedAt = (await listCheckpoints(store, "f", "f")).find((c) => c.seq === 1)!;
    expect(forkedAt.payload.runtime_snapshot).toEqual({ ...expected, state: "running" });
    const r = await new Runner(store, { demo: countingModel(12) }).resume(agent, { runId: "f", threadId: "f" });
    expect(r.state).toBe("completed");
    expect(r.stateSnapshot.llmCalls).toBe(13);
  });

  it("a run stored plain by an earlier version and resumed by this one reads back, plain and v2 records together", async () => {
    const r = recording();
    const agent = countingAgent("bench", 8);
    const crashing = new Runner(r.wrapped, { demo: countingModel(8) }, { failpoint: { at: "step_started", step: 5, action: "throw" } });
    await expect(crashing.run(agent, { userMessage: "go", runId: "r" })).rejects.toBeInstanceOf(FailpointError);
    // Every record rewritten plain, as an earlier version stored them.
    for (const e of await r.store.listState("r", ""))
      if (/^(checkpoint|effect):/.test(e.key)) await putRaw(r.store, "r", e.key, r.written.get(e.key)!);
    expect((await r.store.listState("r", "checkpoint:")).every((e) => (e.value as { v?: number }).v === undefined)).toBe(true);
    expect((await new Runner(r.wrapped, { demo: countingModel(8) }).resume(agent, { runId: "r", threadId: "r" })).state).toBe("completed");
    const cps = await expectAsWritten(r.store, r.written, "r", "r");
    const stored = await r.store.listState("r", "checkpoint:r:0");
    expect(stored.filter((e) => (e.value as { v?: number }).v === 2).length).toBeGreaterThan(5);
    expect(stored.length).toBe(cps.length);
    expect((await validateEffects(r.store, "r", "r")).length).toBe(8);
  });

  it("a damaged record is corruption named by its key; the records after it in its window too; another run still reads", async () => {
    const damages: [string, (text: string) => string][] = [
      ["a field of the wrong type", (t) => t.replace('"t":', '"t":"x","_":')],
      ["an unknown storage version", (t) => t.replace('"v":2', '"v":3')],
      ["a log digest that is not one", (t) => t.replace(/"[A-Za-z0-9_-]{43}"/, '"not a digest"')],
    ];
    const { store } = await counted(12);
    await new Runner(store, { demo: countingModel(3) }).run(countingAgent("bench", 3), { userMessage: "go", runId: "other" });
    const stored = await store.listState("r", "checkpoint:");
    for (const [what, damage] of damages)
      for (const pick of [/:000000:\d+:run_started$/, /:000007:\d+:post_tool_batch$/]) {
        const victim = stored.find((e) => pick.test(e.key))!;
        const copy = new InMemoryStore();
        for (const e of await store.listState("r", "")) await putRaw(copy, "r", e.key, e.text!);
        await putRaw(copy, "r", victim.key, damage(victim.text!));
        const err = await listCheckpoints(copy, "r", "r").catch((e) => e);
        expect(err, `${what} ${victim.key}`).toBeInstanceOf(AgentCheckpointCorruptionError);
        expect((err as AgentCheckpointCorruptionError).key, what).toBe(victim.key);
      }
    expect((await listCheckpoints(store, "other", "other")).length).toBeGreaterThan(5);
  });

  it("a delta whose record before it is gone is corruption of the delta, named by its key", async () => {
    const { store } = await counted(12);
    const stored = await store.listState("r", "checkpoint:");
    const gone = stored.findIndex((e) => /:000005:\d+:pre_llm$/.test(e.key));
    await store.deleteState("r", stored[gone].key);
    const err = await listCheckpoints(store, "r", "r").catch((e) => e);
    expect(err).toBeInstanceOf(AgentCheckpointCorruptionError);
    expect((err as AgentCheckpointCorruptionError).key).toBe(stored[gone + 1].key);
    expect((err as Error).message).toMatch(/record before it/);
  });

  it("effects are stored without what their key says and read back as written", async () => {
    const { store, written } = await counted(3);
    for (const e of await store.listState("r", "effect:")) {
      expect(e.text).not.toContain('"run_id"');
      expect((await validateEffects(store, "r", "r")).find((x) => keys.effect("r", x.step, x.tool_call_id) === e.key)).toEqual(
        JSON.parse(written.get(e.key)!),
      );
    }
  });
});
