// What the timeline's diff card shows, worked out on the server (app/runs/[runId]/timeline/diff-data.ts): the
// card (a client component) is given this instead of its markup travelling in the page's payload.
import { describe, expect, it } from "vitest";
import { diffData } from "@/app/runs/[runId]/timeline/diff-data";
import type { DiffDto, SnapshotSummary } from "@/lib/dto";

const T0 = Date.UTC(2026, 11, 6, 17, 30, 0);
const side = (over: Partial<SnapshotSummary>): SnapshotSummary => ({
  seq: 0,
  phase: "run_started",
  step: 0,
  timestampMs: T0,
  state: "running",
  messageCount: 2,
  llmCalls: 0,
  toolCalls: 0,
  totalTokens: 0,
  costUsd: 0,
  pending: null,
  snapshotFromSeq: 0,
  ...over,
});

describe("a checkpoint diff as the card shows it", () => {
  it("marks the fields that changed, writes absent values as a dash, names the calls a message made", () => {
    const diff: DiffDto = {
      from: side({}),
      to: side({
        seq: 7,
        phase: "post_llm",
        step: 1,
        timestampMs: T0 + 2_100,
        messageCount: 3,
        llmCalls: 1,
        totalTokens: null,
        pending: { text: "", toolCalls: ["lookup_order", "notify"] },
        snapshotFromSeq: 7,
      }),
      messagesAdded: [
        {
          role: "assistant",
          content: "Looking it up.",
          tool_calls: [
            { id: "c1", name: "lookup_order", args: {} },
            { id: "c2", name: "notify", args: {} },
          ],
        },
        { role: "user", content: "Thanks" },
      ],
      payloadKeys: { from: [], to: [] },
    };
    const d = diffData(diff);
    expect([d.from, d.to]).toEqual([0, 7]);
    const field = (name: string) => d.fields.find((f) => f.name === name);
    expect(d.fields.map((f) => f.name)).toEqual([
      "phase",
      "step",
      "state",
      "messages",
      "LLM calls",
      "tool calls",
      "tokens",
      "cost",
      "pending response",
      "time",
    ]);
    expect(field("phase")).toEqual({ name: "phase", from: "run_started", to: "post_llm", changed: true });
    expect(field("state")).toEqual({ name: "state", from: "running", to: "running", changed: false });
    expect(field("tool calls")?.changed).toBe(false);
    expect(field("tokens")).toEqual({ name: "tokens", from: "0", to: "—", changed: true });
    expect(field("pending response")).toEqual({ name: "pending response", from: "none", to: "lookup_order, notify", changed: true });
    expect(field("time")?.to).toMatch(/\(\+2\.1 s\)$/);
    expect(d.messages).toEqual([
      { role: "assistant", calls: "lookup_order, notify", content: "Looking it up." },
      { role: "user", calls: undefined, content: "Thanks" },
    ]);
    expect(d.notes).toEqual([]);
  });

  it("says where a side's conversation was read from when it saved none of its own", () => {
    const diff = {
      from: side({ seq: 3, snapshotFromSeq: null }),
      to: side({ seq: 9, snapshotFromSeq: 8 }),
      messagesAdded: [],
      payloadKeys: { from: [], to: [] },
    } as DiffDto;
    const d = diffData(diff);
    expect(d.notes.map((n) => n.seq)).toEqual([3, 9]);
    expect(d.notes[0].text).toMatch(/^Checkpoint 3 saved no copy of the conversation/);
    expect(d.notes[1].text).toMatch(/saved at checkpoint 8, the last one before it that did\.$/);
    // The same values on both sides; the time reads "(+0 ms)" on the "to" side, so it is a change of text.
    expect(d.fields.filter((f) => f.changed).map((f) => f.name)).toEqual(["time"]);
  });
});
