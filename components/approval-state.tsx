// How an approval or question card shows where it stands: a tone per status (pending amber, approved
// green, rejected red, answered blue, expired grey: the border, the tint and a mark, never colour alone),
// and the status in words, with who decided and when. Pending cards say who they wait for: the reader, or
// a reviewer (the submitter, someone outside the routed groups, anyone who may not decide).
import type { ShownApproval } from "@/lib/dto";
import { approvalStatusWords, fmtTime } from "@/lib/format";
import { RUN_ENDED_DECIDER } from "@/lib/runner/ids";

const TONE: Record<string, string> = {
  pending: "border-amber-400 bg-amber-50 dark:border-amber-700/70 dark:bg-amber-950/30",
  approved: "border-emerald-400 bg-emerald-50 dark:border-emerald-600 dark:bg-emerald-950",
  rejected: "border-rose-400 bg-rose-50 dark:border-rose-600 dark:bg-rose-950",
  responded: "border-sky-400 bg-sky-50 dark:border-sky-600 dark:bg-sky-950",
  expired: "border-slate-300 bg-slate-100 dark:border-slate-600 dark:bg-slate-800",
};
const MARK: Record<string, string> = { pending: "●", approved: "✓", rejected: "✕", responded: "↩", expired: "○" };
const WORDS_COLOR: Record<string, string> = {
  pending: "text-amber-900 dark:text-amber-100",
  approved: "text-emerald-800 dark:text-emerald-200",
  rejected: "text-rose-800 dark:text-rose-200",
  responded: "text-sky-900 dark:text-sky-100",
  expired: "text-slate-700 dark:text-slate-200",
};

/** Classes of a card's box: its status tone, a thick left edge, and a ring when a link focused it. */
export const cardTone = (status: string) => `approval-box ${TONE[status] ?? TONE.pending}`;

/**
 * The status in words: "Waiting for your decision", "Waiting for a reviewer", "Approved by … at …",
 * "Rejected by … at …", "Answered …", "Expired …".
 */
export function ApprovalOutcome({
  approval: a,
  decidesHere,
  brief = false,
}: {
  approval: ShownApproval;
  decidesHere: boolean;
  /** Words only: the card says who decided and what elsewhere (a question's answer line). */
  brief?: boolean;
}) {
  const last = a.decisions.at(-1);
  const question = a.kind === "question";
  let words = approvalStatusWords(a.status, a.kind);
  if (a.status === "pending")
    words = decidesHere ? (question ? "Waiting for your answer" : "Waiting for your decision") : "Waiting for a reviewer";
  const decided = a.status !== "pending" && !brief;
  // A request the run's end closed says why (its reason); the run page's header says who cancelled it.
  const by = decided && last && last.by !== RUN_ENDED_DECIDER ? ` by ${last.by}` : "";
  const at = decided ? (a.decided_at_ms ?? last?.at_ms) : null;
  // One decision settled it: its reason (the feedback, the response) is said here, not in a list below.
  const reason = decided && a.decisions.length === 1 && last?.decision !== "approve" ? last?.reason : null;
  return (
    <p className={`mt-1 text-sm font-semibold ${WORDS_COLOR[a.status] ?? WORDS_COLOR.pending}`} data-testid="approval-outcome">
      <span aria-hidden="true">{MARK[a.status] ?? "●"} </span>
      {words}
      {by}
      {at ? <span className="font-normal"> at {fmtTime(at)}</span> : null}
      {reason ? <span className="whitespace-pre-wrap font-normal">: {reason}</span> : null}
    </p>
  );
}
