// What a worker writes to the Run row while it executes a run (lib/execution/progress.ts): the step and
// phase, one write at a time, only when they change, and a live "run" message when the conversation grew.
import { describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { LiveBus, type LiveMessage } from "@/lib/live/bus";
import { newProgress, RunProgress, type Tracked } from "@/lib/execution/progress";
import { EVENT_SCHEMA_VERSION, type RunEvent, type RunEventType } from "@/lib/runner";

// A client without a driver: each progress write arrives here as Prisma's raw statement, [step, phase].
function recordingDb() {
  const writes: unknown[][] = [];
  const db = {
    $executeRaw: async (q: { values: unknown[] }) => {
      await new Promise((r) => setImmediate(r));
      writes.push(q.values.slice(0, -3)); // without updatedAt, the id and the epoch
      return 1;
    },
  } as unknown as Db;
  return { db, writes };
}

const ev = (type: RunEventType, step: number, phase?: string): RunEvent => ({
  type,
  runId: "r1",
  threadId: "r1",
  state: "running",
  step,
  message: "",
  data: phase ? { phase } : {},
  schemaVersion: EVENT_SCHEMA_VERSION,
});

// The events of one step with one tool call, in the order the runner emits them.
const step = (n: number): RunEvent[] => [
  ev("checkpoint", n, "step_started"),
  ev("step_started", n),
  ev("checkpoint", n, "pre_llm"),
  ev("llm_called", n),
  ev("llm_completed", n),
  ev("checkpoint", n, "post_llm"),
  ev("checkpoint", n, "pre_tool_batch"),
  ev("tool_batch_started", n),
  ev("tool_completed", n),
  ev("checkpoint", n, "post_tool_batch"),
];

describe("a run's progress on its row", () => {
  const setup = () => {
    const { db, writes } = recordingDb();
    const live = new LiveBus();
    const published: LiveMessage[] = [];
    live.subscribe((m) => published.push(m));
    const run: Tracked = { runId: "r1", epoch: 1, leased: true, progress: newProgress() };
    return { progress: new RunProgress(db, live, null), run, writes, published };
  };

  it("writes each change of step or phase once; events that change neither write nothing", async () => {
    const { progress, run, writes, published } = setup();
    for (const n of [1, 2])
      for (const e of step(n)) {
        progress.event(run, e);
        await run.progress.writing;
      }
    const phases = ["step_started", "pre_llm", "post_llm", "pre_tool_batch", "post_tool_batch"];
    expect(writes).toEqual([1, 2].flatMap((n) => phases.map((p) => [n, p])));
    // The conversation grew twice a step (the response, the tool results): pages refetch then.
    expect(published.filter((m) => m.topic === "run")).toHaveLength(4);
  });

  it("a burst of events while a write is in flight ends in one write of the newest step and phase", async () => {
    const { progress, run, writes, published } = setup();
    for (const e of step(7)) progress.event(run, e);
    while (run.progress.writing) await run.progress.writing; // the write in flight and the one after it
    expect(writes).toEqual([
      [7, "step_started"],
      [7, "post_tool_batch"],
    ]);
    expect(published.filter((m) => m.topic === "run")).toHaveLength(1);
    // Nothing changed since: a repeated phase and a phase-less event write nothing, a notification still goes out.
    progress.event(run, ev("tool_completed", 7));
    progress.event(run, ev("checkpoint", 7, "post_tool_batch"));
    expect(run.progress.writing).toBeNull();
    expect(writes).toHaveLength(2);
    expect(published.filter((m) => m.topic === "run")).toHaveLength(2);
  });

  it("a run whose lease was lost writes nothing", async () => {
    const { progress, run, writes } = setup();
    const lost: Tracked = { ...run, leased: false };
    for (const e of step(1)) progress.event(lost, e);
    await lost.progress.writing;
    expect(writes).toEqual([]);
  });
});
