// What a timeline row says of why its checkpoint is there, worked out on the server from the payload
// (which stays there: the browser reads a payload only when its row is opened).
import type { timelinePage } from "@/lib/services/timeline";
import { parseApprovalId } from "@/lib/runner/ids";

export type CheckpointNote = { short: string; long: string };
export type Checkpoint = Awaited<ReturnType<typeof timelinePage>>["checkpoints"][number];

/**
 * Why a checkpoint is there, where its phase alone does not say: which call a pause waits for, a repeat.
 * `short` is for a phone's one secondary line, `long` for a desktop and an opened row.
 */
export function note(c: Checkpoint, prev: Checkpoint | undefined): CheckpointNote | null {
  const payload = (c.payload ?? {}) as { approval_id?: unknown; waiting_for?: unknown };
  const call = typeof payload.approval_id === "string" ? (parseApprovalId(payload.approval_id)?.toolCallId ?? null) : null;
  const what = payload.waiting_for === "approval" || !payload.waiting_for ? "a decision" : `an ${String(payload.waiting_for)}`;
  if (c.phase === "paused" && prev?.phase === "paused")
    return {
      short: call ? `waits on ${call} too` : "paused again",
      long: `Paused again: one checkpoint is written per call that waits${call ? `; this one is for ${call}` : ""}.`,
    };
  if (c.phase === "paused") return call ? { short: `waits on ${call}`, long: `Waits for ${what} on ${call}.` } : null;
  if (prev?.phase === c.phase)
    return { short: "re-entered", long: "The same phase again: the step was re-entered (after a resume or a restart)." };
  return null;
}

/** The notes of a page's rows, by seq, for the rows that have one (the rows render in checkpoint-row.tsx). */
export function notesOf(cps: Checkpoint[]): Record<number, CheckpointNote> {
  const notes: Record<number, CheckpointNote> = {};
  cps.forEach((c, i) => {
    const why = note(c, cps[i - 1]);
    if (why) notes[c.seq] = why;
  });
  return notes;
}
