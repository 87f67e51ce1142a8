// Display formatting shared by server and client components.
import { RUN } from "./runner/run-states.ts";

export const fmtTime = (v: string | number | Date | null | undefined) =>
  v == null ? "—" : `${new Date(v).toISOString().replace("T", " ").slice(0, 19)}Z`;

const pad = (n: number) => String(n).padStart(2, "0");

/** The reader's own clock, to the minute: "2026-12-07 07:14" (no Z: it is local; the UTC is on hover). */
export function fmtLocal(v: string | number | Date): string {
  const d = new Date(v);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** How long ago (or how soon) in one unit, as people say it: "just now", "12 min ago", "in 3 h", "5 d ago". */
export function fmtAgo(v: string | number | Date, nowMs: number): string {
  const ms = nowMs - new Date(v).getTime();
  const abs = Math.abs(ms);
  if (abs < 45_000) return "just now";
  const [n, unit] =
    abs < 3_600_000
      ? [Math.round(abs / 60_000), "min"]
      : abs < 172_800_000
        ? [Math.round(abs / 3_600_000), "h"]
        : [Math.round(abs / 86_400_000), "d"];
  return ms >= 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
}

export function fmtDuration(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export const fmtCost = (usd: number | null | undefined) => (usd == null ? "—" : `$${usd.toFixed(usd < 0.01 ? 5 : 2)}`);

/** "1 minute", "15 minutes": a count with its noun in the right number. */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// What a checkpoint phase means to a reader; the raw phase stays beside it as secondary text.
const PHASE_WORDS: Record<string, string> = {
  run_started: "Run started",
  step_started: "Step started",
  pre_llm: "Calling the model",
  post_llm: "Model answered",
  pre_tool_batch: "Running tools",
  post_tool_batch: "Tools finished",
  pre_subagent_batch: "Delegating to subagents",
  post_subagent_batch: "Subagents finished",
  paused: "Waiting for a person",
  resumed: "Resumed",
  run_terminal: "Run ended",
};
export const phaseWords = (phase: string | null | undefined) => (phase == null ? "—" : (PHASE_WORDS[phase] ?? phase));

const STATE_WORDS: Record<string, string> = {
  pending: "Queued",
  running: "Running",
  paused: "Waiting for a person",
  cancelling: "Cancelling",
  cancelled: "Cancelled",
  degraded: "Running, degraded",
  failed: "Failed",
  completed: "Completed",
};

// The audit log's actions as the verb of a sentence whose subject is the actor ("rev@… approved"), in the
// order the audit log's filter offers them.
const AUDIT_ACTION_WORDS: Record<string, string> = {
  "run.start": "started the run",
  "approval.approve": "approved",
  "approval.edit_approve": "approved with edited arguments",
  "approval.reject": "rejected",
  "approval.respond": "answered",
  "approval.deadline_allow": "allowed at its deadline",
  "approval.deadline_deny": "denied at its deadline",
  "approval.reminded": "reminded the reviewers",
  "approval.escalated": "escalated the request",
  "run.resume": "resumed the run",
  "run.auto_resume": "resumed by itself",
  "run.cancel": "cancelled the run",
  "run.retry": "retried the run",
  "run.auto_retry": "retried by itself",
  "run.fork": "forked the run",
  "runtime.register": "registered an external run",
  "runtime.interrupt": "parked requests (external run)",
  "runtime.claim": "claimed decisions (external run)",
  "runtime.withdraw": "withdrew a request (external run)",
  "retention.prune": "pruned old checkpoints",
  "user.create": "created a user",
  "user.update": "changed a user",
  "user.sso_refused": "refused a single sign-on",
  "user.suspend": "suspended a user",
  "user.restore": "restored a user",
  "scim.group.create": "created a group (SCIM)",
  "scim.group.update": "changed a group (SCIM)",
  "scim.group.delete": "deleted a group (SCIM)",
  "token.create": "created an API token",
  "token.revoke": "revoked an API token",
  "notify.preferences": "changed notification settings",
};
export const AUDIT_ACTIONS = Object.keys(AUDIT_ACTION_WORDS);
/** An audit action in words ("approved", not "approval.approve"); one this console does not know, as it is. */
export const auditActionWords = (action: string) => AUDIT_ACTION_WORDS[action] ?? action;

/** A tab's title with the number of approvals waiting in front ("(3) Approvals · AFK Console"), none when 0. */
export function titleWithCount(title: string, pending: number): string {
  const base = title.replace(/^\(\d+\) /, "");
  return pending > 0 ? `(${pending}) ${base}` : base;
}

/** A paused run with every request decided whose agent waits for someone to press Resume (`autoResume: false`). */
export const READY_TO_RESUME = "Ready to resume";

/** A run's state in words; a paused run says what it waits for ("Waiting for approval", "Waiting for an answer"). */
export function runStateWords(state: string, waiting: { kind: string }[] = []): string {
  if (state !== RUN.paused || waiting.length === 0) return STATE_WORDS[state] ?? state;
  const questions = waiting.filter((w) => w.kind === "question").length;
  if (questions === waiting.length) return questions === 1 ? "Waiting for an answer" : "Waiting for answers";
  return questions === 0 ? "Waiting for approval" : "Waiting for approval and answers";
}

/** An approval's status in words, for a tool call (or delegation) and for a question. */
export function approvalStatusWords(status: string, kind: string): string {
  const question = kind === "question";
  switch (status) {
    case "pending":
      return question ? "Waiting for an answer" : "Waiting for a decision";
    case "approved":
      return "Approved";
    case "rejected":
      return question ? "Declined" : "Rejected";
    case "responded":
      return question ? "Answered" : "Answered in the tool's place";
    case "expired":
      return "Expired";
    default:
      return status;
  }
}
