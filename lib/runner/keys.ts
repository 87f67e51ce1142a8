// Store keys. The runner owns their format (afk-runtime.md, "Checkpoints as the reference writes them":
// `checkpoint:{run}:{step}:{phase}`, `checkpoint:{run}:latest`, `effect:{run}:{step}:{toolCallId}`, plus
// ours: a write sequence in checkpoint keys, append-only logs, approvals); nothing else builds or parses one.

const pad = (n: number, w = 6) => String(n).padStart(w, "0");

/** Keys sort lexicographically in write order within a run, so listState(prefix) is the timeline. */
export const keys = {
  checkpoint: (runId: string, step: number, seq: number, phase: string) => `checkpoint:${runId}:${pad(step)}:${pad(seq, 4)}:${phase}`,
  checkpointPrefix: (runId: string) => `checkpoint:${runId}:`,
  /**
   * Bounds of a run's checkpoint record keys, `from` included, `to` not: every record key continues the
   * prefix with the step's digits, and ':' sorts right after '9', so the latest pointer (`…:latest`) and
   * any other run's keys fall outside. A count or a page of them reads the key index alone.
   */
  checkpointKeyRange: (runId: string) => ({ from: `checkpoint:${runId}:0`, to: `checkpoint:${runId}::` }),
  /**
   * Where the checkpoint keys of a run hold a seq: `text` (the seq and its separator) at the 1-based
   * `offset`, in every key of a step below 1,000,000. A reader finds checkpoint `seq` by comparing keys
   * in an index, without reading a record (seq does not follow key order: a retry writes a higher seq at
   * an earlier step).
   */
  checkpointSeqAt: (runId: string, seq: number) => ({ offset: `checkpoint:${runId}:${pad(0)}:`.length + 1, text: `${pad(seq, 4)}:` }),
  runtime: (runId: string) => `runtime:${runId}`,
  /** The i-th entry of the log whose entries are keyed under `prefix` (messagePrefix, toolExecutionPrefix, …). */
  logEntry: (prefix: string, index: number) => `${prefix}${pad(index, 7)}`,
  message: (runId: string, index: number) => `message:${runId}:${pad(index, 7)}`,
  messagePrefix: (runId: string) => `message:${runId}:`,
  toolExecution: (runId: string, index: number) => `toolexec:${runId}:${pad(index, 7)}`,
  toolExecutionPrefix: (runId: string) => `toolexec:${runId}:`,
  subagentExecution: (runId: string, index: number) => `subexec:${runId}:${pad(index, 7)}`,
  subagentExecutionPrefix: (runId: string) => `subexec:${runId}:`,
  effect: (runId: string, step: number, toolCallId: string) => `effect:${runId}:${pad(step)}:${toolCallId}`,
  effectPrefix: (runId: string) => `effect:${runId}:`,
  effectStepPrefix: (runId: string, step: number) => `effect:${runId}:${pad(step)}:`,
  /** One approval request: scoped by step, because providers reuse tool call ids across steps. */
  approval: (runId: string, step: number, toolCallId: string) => `approval:${runId}:${pad(step)}:${toolCallId}`,
  /** Written before approvals were scoped by step; still read (see approvals.ts findApproval). */
  legacyApproval: (runId: string, toolCallId: string) => `approval:${runId}:${toolCallId}`,
  approvalPrefix: (runId: string) => `approval:${runId}:`,
  /** Approvals of every subagent run under runId, at any depth. */
  descendantApprovalPrefix: (runId: string) => `approval:${runId}.`,
};

/** The key of the copy of a run's newest checkpoint. */
export function checkpointLatestKey(runId: string): string {
  return `checkpoint:${runId}:latest`;
}

export type KeyKind = "checkpoint" | "latest" | "runtime" | "message" | "toolexec" | "subexec" | "effect" | "approval" | "other";

/** What a key names: its kind, the run it belongs to and, where the key holds them, the step and phase. */
export type ParsedKey = { kind: KeyKind; runId: string | null; step: number | null; phase: string | null };

const LOGS = new Set(["runtime", "message", "toolexec", "subexec"]);

/** Parses any key this module builds; an unknown key is kind "other" with no run. */
export function parseKey(key: string): ParsedKey {
  const parts = key.split(":");
  const runId = parts[1] || null;
  const num = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : null);
  switch (parts[0]) {
    case "checkpoint":
      if (parts[2] === "latest") return { kind: "latest", runId, step: null, phase: null };
      return { kind: "checkpoint", runId, step: num(parts[2]), phase: parts[4] ?? null };
    case "effect":
      return { kind: "effect", runId, step: num(parts[2]), phase: null };
    case "approval":
      // Legacy approval keys (`approval:{run}:{toolCallId}`) carry no step.
      return { kind: "approval", runId, step: parts.length >= 4 ? num(parts[2]) : null, phase: null };
    default:
      if (LOGS.has(parts[0])) return { kind: parts[0] as KeyKind, runId, step: null, phase: null };
      return { kind: "other", runId: null, step: null, phase: null };
  }
}

/** A checkpoint record's position in its run's timeline (a page's cursor): its key, which sorts in write order. */
export const checkpointCursor = (runId: string, c: { step: number; seq: number; phase: string }) =>
  keys.checkpoint(runId, c.step, c.seq, c.phase);
