// What the diff card shows, worked out on the server: the card is a client component (diff-view.tsx) given
// this, so the Flight payload inlined in the page carries its text once instead of its markup (a server
// component's table travelled twice: as HTML, and as markup again in the payload). Not a "use client"
// module: the page (a server component) calls it.
import { fmtCost, fmtDuration, fmtTime } from "@/lib/format";
import type { diffCheckpoints } from "@/lib/services/timeline";

type Diff = Awaited<ReturnType<typeof diffCheckpoints>>;

export type DiffField = { name: string; from: string; to: string; changed: boolean };
export type DiffMessage = { role?: string; calls?: string; content?: string };
export type DiffData = {
  from: number;
  to: number;
  fields: DiffField[];
  messages: DiffMessage[];
  /** A sentence for each side whose conversation was read from an earlier checkpoint's copy. */
  notes: { seq: number; text: string }[];
};

export function diffData(diff: Diff): DiffData {
  const rows: [string, unknown, unknown][] = [
    ["phase", diff.from.phase, diff.to.phase],
    ["step", diff.from.step, diff.to.step],
    ["state", diff.from.state, diff.to.state],
    ["messages", diff.from.messageCount, diff.to.messageCount],
    ["LLM calls", diff.from.llmCalls, diff.to.llmCalls],
    ["tool calls", diff.from.toolCalls, diff.to.toolCalls],
    ["tokens", diff.from.totalTokens, diff.to.totalTokens],
    ["cost", fmtCost(diff.from.costUsd), fmtCost(diff.to.costUsd)],
    [
      "pending response",
      diff.from.pending ? `${diff.from.pending.toolCalls.join(", ") || "text"}` : "none",
      diff.to.pending ? `${diff.to.pending.toolCalls.join(", ") || "text"}` : "none",
    ],
    [
      "time",
      fmtTime(diff.from.timestampMs),
      `${fmtTime(diff.to.timestampMs)} (+${fmtDuration(diff.to.timestampMs - diff.from.timestampMs)})`,
    ],
  ];
  return {
    from: diff.from.seq,
    to: diff.to.seq,
    fields: rows.map(([name, a, b]) => ({
      name,
      from: String(a ?? "—"),
      to: String(b ?? "—"),
      changed: JSON.stringify(a) !== JSON.stringify(b),
    })),
    messages: diff.messagesAdded.map((m) => {
      const msg = m as { role?: string; content?: string; tool_calls?: { name: string }[] };
      return {
        role: msg.role,
        calls: msg.tool_calls?.length ? msg.tool_calls.map((t) => t.name).join(", ") : undefined,
        content: msg.content,
      };
    }),
    notes: [diff.from, diff.to]
      .filter((s) => s.snapshotFromSeq !== s.seq)
      .map((s) => ({
        seq: s.seq,
        text:
          s.snapshotFromSeq == null
            ? `Checkpoint ${s.seq} saved no copy of the conversation and no earlier one did, so its messages, calls, tokens and cost are not known.`
            : `Checkpoint ${s.seq} did not save its own copy of the conversation (only the start of a run or a step, and the end of a model call or a tool batch do), so its messages, calls, tokens and cost are those saved at checkpoint ${s.snapshotFromSeq}, the last one before it that did.`,
      })),
  };
}
