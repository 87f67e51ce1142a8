// Checkpoint and effect records are stored compressed, a checkpoint's runtime snapshot as a delta between
// full ones (lib/runner/record-codec.ts): every record reads back exactly as it was written, a fork from a
// delta in the middle of its window continues from the right snapshot, plain records of earlier versions
// still read, and a damaged record is corruption named by its key.
import { describe, expect, it } from "vitest";
import {
  AgentCheckpointCorruptionError,
  type CheckpointRecord,
  InMemoryStore,
  type MemoryStore,
  Runner,
  SNAPSHOT_PHASES,
  type StateEntry,
  checkpointLatestKey,
  keys,
  listCheckpoints,
  loadLatestCheckpoint,
  prepareFork,
  validateEffects,
} from "@/lib/runner";
import { countingAgent, countingModel } from "../../bench/bench-agent";

/** A store that keeps the value objects the runner handed it (what each record is before encoding). */
function recording() {
  const store = new InMemoryStore();
  const written = new Map<string, unknown>();
  const wrapped: MemoryStore = Object.create(store);
  wrapped.putStates = async (t: string, entries: StateEntry[]) => {
    for (const e of entries) written.set(e.key, JSON.parse(JSON.stringify(e.value)));
    await store.putStates(t, entries);
  };
  return { store, wrapped, written };
}

async function counted(steps: number, runId = "r") {
  const r = recording();
  const result = await new Runner(r.wrapped, { demo: countingModel(steps) }).run(countingAgent("bench", steps), {
    userMessage: "go",
    runId,
  });
  expect(result.state).toBe("completed");
  return r;
}

const keyOf = (c: CheckpointRecord) => keys.checkpoint(c.run_id, c.step, c.seq, c.phase);

describe("stored checkpoint records", () => {
  it("read back exactly as written, deltas resolved, in a fraction of the bytes", async () => {
    const { store, written } = await counted(12);
    const entries = await store.listState("r", "checkpoint:");
    // Stored as z1 text, the snapshot records mostly as deltas.
    expect(entries.every((e) => typeof e.value === "string" && e.value.startsWith("z1:"))).toBe(true);
    const cps = await listCheckpoints(store, "r", "r");
    expect(cps.length).toBe(entries.length - 1);
    for (const c of cps) expect(c, keyOf(c)).toEqual(written.get(keyOf(c)));
    expect(await loadLatestCheckpoint(store, "r", "r")).toEqual(written.get(checkpointLatestKey("r")));
    // Every snapshot phase has its snapshot: run_started, 13 step_started, 13 post_llm, 12 post_tool_batch.
    const snapshots = cps.filter((c) => c.payload.runtime_snapshot !== undefined);
    expect(snapshots.length).toBe(1 + 13 + 13 + 12);
    expect(snapshots.every((c) => (SNAPSHOT_PHASES as readonly string[]).includes(c.phase))).toBe(true);
    for (const e of await validateEffects(store, "r", "r")) expect(e).toEqual(written.get(keys.effect("r", e.step, e.tool_call_id)));
  });

  it("a 200-step run stores at most 0.35 MB (1.06 MB before)", async () => {
    const runId = "bench-sqlite-200-1796611647940"; // the bench's id length: ids are in every key
    const { store } = await counted(200, runId);
    const bytes = (await store.listState(runId, "")).reduce((n, e) => n + Buffer.byteLength(e.key) + Buffer.byteLength(e.text ?? ""), 0);
    expect(bytes / 1048576).toBeLessThanOrEqual(0.35);
  }, 30_000);

  it("a fork from a delta in the middle of its window continues from that checkpoint's snapshot", async () => {
    const { store, written } = await counted(12);
    const stored = await store.listState("r", "checkpoint:");
    // post_llm of step 7: a delta, six snapshot records after the full one at step 5.
    const mid = stored.find((e) => /:000007:\d+:post_llm$/.test(e.key))!;
    const seq = Number(mid.key.split(":")[3]);
    const expected = (written.get(mid.key) as CheckpointRecord).payload.runtime_snapshot as Record<string, unknown>;
    expect(expected.step).toBe(7);
    const agent = countingAgent("bench", 12);
    await prepareFork(store, { threadId: "r", runId: "r", seq, newRunId: "f", agent });
    const forkedAt = (await listCheckpoints(store, "f", "f")).find((c) => c.seq === 1)!;
    expect(forkedAt.payload.runtime_snapshot).toEqual({ ...expected, state: "running" });
    const r = await new Runner(store, { demo: countingModel(12) }).resume(agent, { runId: "f", threadId: "f" });
    expect(r.state).toBe("completed");
    expect(r.stateSnapshot.llmCalls).toBe(13);
  });

  it("plain records written before the encoding still read, mixed with encoded ones", async () => {
    const { store, written } = await counted(8);
    const stored = await store.listState("r", "checkpoint:");
    // Every record of steps up to 3 rewritten plain, as an earlier version stored them.
    for (const e of [...stored.filter((x) => /:00000[0-3]:/.test(x.key)), ...(await store.listState("r", "effect:"))])
      await store.putStates("r", [{ key: e.key, value: written.get(e.key) }]);
    for (const c of await listCheckpoints(store, "r", "r")) expect(c).toEqual(written.get(keyOf(c)));
    expect((await validateEffects(store, "r", "r")).length).toBe(8);
  });

  it("a damaged record is corruption named by its key; another run of the store still reads", async () => {
    const cases: [string, (key: string, text: string) => string][] = [
      ["not base64", (_k, t) => t.replace("z1:", "z1:*")],
      ["truncated", (_k, t) => `${t.slice(0, 30)}"`],
    ];
    for (const [what, damage] of cases) {
      const { store } = await counted(12);
      await new Runner(store, { demo: countingModel(3) }).run(countingAgent("bench", 3), { userMessage: "go", runId: "other" });
      const stored = await store.listState("r", "checkpoint:");
      // The full snapshot of step 5 (a window's first), then a delta of the same window.
      for (const pick of [/:000005:\d+:step_started$/, /:000007:\d+:post_tool_batch$/]) {
        const victim = stored.find((e) => pick.test(e.key))!;
        const copy = new InMemoryStore();
        await copy.putStates("r", await store.listState("r", ""));
        await copy.putStates("r", [{ key: victim.key, value: null, text: damage(victim.key, victim.text!) }]);
        const err = await listCheckpoints(copy, "r", "r").catch((e) => e);
        expect(err, `${what} ${victim.key}`).toBeInstanceOf(AgentCheckpointCorruptionError);
        expect((err as AgentCheckpointCorruptionError).key, what).toBe(victim.key);
      }
      expect((await listCheckpoints(store, "other", "other")).length).toBeGreaterThan(5);
    }
  });

  it("a delta whose base is gone is corruption of the delta, named by its key", async () => {
    const { store } = await counted(12);
    const stored = await store.listState("r", "checkpoint:");
    const base = stored.find((e) => /:000005:\d+:step_started$/.test(e.key))!;
    await store.deleteState("r", base.key);
    const err = await listCheckpoints(store, "r", "r").catch((e) => e);
    expect(err).toBeInstanceOf(AgentCheckpointCorruptionError);
    expect((err as AgentCheckpointCorruptionError).key).toBe(stored.find((e) => /:000005:\d+:post_llm$/.test(e.key))!.key);
  });
});
