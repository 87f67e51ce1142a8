// The write-behind writer on its own (checkpoint-schema.md, "Async write-behind behavior"): back-pressure,
// coalescing of runtime snapshots only (and only when configured), the bounded flush, failures surfacing.
import { describe, expect, it } from "vitest";
import { CheckpointWriteError, InMemoryStore, type StateEntry } from "@/lib/runner";
import { CheckpointWriter } from "@/lib/runner/writer";

// A store that records every entry it is asked to write, and can be held or made to fail.
class RecordingStore extends InMemoryStore {
  log: StateEntry[] = [];
  gate: Promise<void> | null = null;
  fail: Error | null = null;
  inFlight = 0;
  maxInFlight = 0;
  override async putStates(threadId: string, entries: StateEntry[]) {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.gate) await this.gate;
      if (this.fail) throw this.fail;
      this.log.push(...entries);
      await super.putStates(threadId, entries);
    } finally {
      this.inFlight--;
    }
  }
  override async putState(threadId: string, key: string, value: unknown) {
    if (this.gate) await this.gate;
    if (this.fail) throw this.fail;
    if (this.inFlight === 0) this.log.push({ key, value });
    await super.putState(threadId, key, value);
  }
}

const writer = (store: RecordingStore, o: Partial<{ async: boolean; maxQueue: number; coalesce: boolean }> = {}) =>
  new CheckpointWriter(store, "t", { async: true, maxQueue: 1024, coalesce: true, ...o });

describe("write-behind writer", () => {
  it("coalesces queued runtime snapshots of one key, and only those", async () => {
    const s = new RecordingStore();
    let release!: () => void;
    s.gate = new Promise((r) => (release = r));
    const w = writer(s);
    await w.enqueue("a", 0); // goes out first, held in flight
    await new Promise((r) => setImmediate(r));
    for (let i = 1; i <= 5; i++) {
      await w.enqueue("runtime:r", { n: i }, { coalescable: true });
      await w.enqueue("checkpoint:r:latest", { n: i });
    }
    release();
    s.gate = null;
    expect(await w.flush()).toBe(true);
    const runtime = s.log.filter((e) => e.key === "runtime:r").map((e) => (e.value as { n: number }).n);
    const latest = s.log.filter((e) => e.key === "checkpoint:r:latest").map((e) => (e.value as { n: number }).n);
    expect(runtime).toEqual([5]); // only the newest snapshot was written
    expect(latest).toEqual([1, 2, 3, 4, 5]); // the latest pointer is never coalesced
    expect(w.coalesced).toBe(4);
    expect(await s.getState("t", "runtime:r")).toEqual({ n: 5 });
  });

  it("with checkpointCoalesceRuntimeState off, every snapshot is written", async () => {
    const s = new RecordingStore();
    let release!: () => void;
    s.gate = new Promise((r) => (release = r));
    const w = writer(s, { coalesce: false });
    await w.enqueue("a", 0);
    await new Promise((r) => setImmediate(r));
    for (let i = 1; i <= 3; i++) await w.enqueue("runtime:r", { n: i }, { coalescable: true });
    release();
    s.gate = null;
    await w.flush();
    expect(s.log.filter((e) => e.key === "runtime:r").map((e) => (e.value as { n: number }).n)).toEqual([1, 2, 3]);
    expect(w.coalesced).toBe(0);
  });

  it("a full queue back-pressures enqueue until the drain makes room", async () => {
    const s = new RecordingStore();
    let release!: () => void;
    s.gate = new Promise((r) => (release = r));
    const w = writer(s, { maxQueue: 2 });
    await w.enqueue("k0", 0);
    await new Promise((r) => setImmediate(r)); // k0 in flight, queue empty
    expect(w.enqueue("k1", 1)).toBeUndefined(); // room: queued at once, nothing to wait for
    expect(w.enqueue("k2", 2)).toBeUndefined();
    let third = false;
    const waiting = w.enqueue("k3", 3);
    expect(waiting).toBeInstanceOf(Promise);
    const p = waiting!.then(() => (third = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(third).toBe(false); // waiting for room
    expect(w.queued).toBe(2);
    release();
    s.gate = null;
    await p;
    expect(third).toBe(true);
    await w.flush();
    expect(s.log.map((e) => e.key)).toEqual(["k0", "k1", "k2", "k3"]);
  });

  it("enqueueAll queues in order, waiting for room where the queue is full", async () => {
    const s = new RecordingStore();
    let release!: () => void;
    s.gate = new Promise((r) => (release = r));
    const w = writer(s, { maxQueue: 2 });
    w.enqueue("k0", 0);
    await new Promise((r) => setImmediate(r)); // k0 in flight, queue empty
    expect(w.enqueueAll([{ key: "k1", value: 1 }])).toBeUndefined();
    const waiting = w.enqueueAll(["k2", "k3", "k4"].map((key, i) => ({ key, value: i + 2 })));
    expect(waiting).toBeInstanceOf(Promise);
    expect(w.queued).toBe(2); // k1, k2; k3 and k4 wait
    release();
    s.gate = null;
    await waiting;
    await w.flush();
    expect(s.log.map((e) => e.key)).toEqual(["k0", "k1", "k2", "k3", "k4"]);
  });

  it("a bounded flush answers false at its deadline while the drain goes on", async () => {
    const s = new RecordingStore();
    let release!: () => void;
    s.gate = new Promise((r) => (release = r));
    const w = writer(s);
    await w.enqueue("k", 1);
    const t0 = Date.now();
    expect(await w.flush(50)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await s.getState("t", "k")).toBeUndefined();
    release();
    s.gate = null;
    expect(await w.flush(1000)).toBe(true);
    expect(await s.getState("t", "k")).toBe(1);
  });

  it("a failed write surfaces on flush and on every later enqueue; nothing is reported saved", async () => {
    const s = new RecordingStore();
    s.fail = new Error("disk full");
    const w = writer(s);
    await w.enqueue("k", 1);
    await expect(w.flush()).rejects.toBeInstanceOf(CheckpointWriteError);
    await expect(w.flush()).rejects.toThrow(/disk full/);
    await expect(w.enqueue("k2", 2)).rejects.toBeInstanceOf(CheckpointWriteError);
    expect(w.failed).toBeInstanceOf(CheckpointWriteError);
    expect(w.written).toBe(0);
  });

  it("without async writes, enqueue is the write itself", async () => {
    const s = new RecordingStore();
    const w = writer(s, { async: false });
    await w.enqueue("k", 1);
    expect(await s.getState("t", "k")).toBe(1);
    s.fail = new Error("gone");
    await expect(w.enqueue("k", 2)).rejects.toBeInstanceOf(CheckpointWriteError);
  });

  it("one drain at a time: batches never overlap", async () => {
    const s = new RecordingStore();
    const w = writer(s);
    for (let i = 0; i < 200; i++) await w.enqueue(`k${i}`, i);
    await w.flush();
    expect(s.maxInFlight).toBe(1);
    expect(s.log.map((e) => e.key)).toEqual(Array.from({ length: 200 }, (_, i) => `k${i}`));
    expect(w.batches).toBeLessThan(200);
  });
});

describe("terminal flush", () => {
  it("a terminal checkpoint that is not durable in time is not reported as a clean completion", async () => {
    const { Runner, DemoModel } = await import("@/lib/runner");
    class SlowTerminal extends InMemoryStore {
      release: (() => void) | null = null;
      override async putStates(threadId: string, entries: StateEntry[]) {
        if (entries.some((e) => e.key.endsWith(":run_terminal"))) await new Promise<void>((r) => (this.release = r));
        await super.putStates(threadId, entries);
      }
    }
    const store = new SlowTerminal();
    const model = new DemoModel({ one: () => ({ text: "done" }) });
    const runner = new Runner(store, { demo: model }, { failpoint: undefined, checkpointFlushTimeoutS: 0.1 });
    const warnings: string[] = [];
    const h = runner.runHandle({ name: "one", model: "demo:one", instructions: "", tools: [] }, { userMessage: "hi", runId: "r1" });
    const events = (async () => {
      for await (const e of h.events) if (e.type === "warning") warnings.push(e.message);
    })();
    const r = await h.awaitResult();
    await events;
    expect(r.state).toBe("failed");
    expect(r.terminalDurable).toBe(false);
    expect(r.error).toMatch(/CheckpointWriteError: terminal checkpoint not durable/);
    expect(warnings).toContain("terminal checkpoint flush timed out");
    store.release?.();
  });
});
