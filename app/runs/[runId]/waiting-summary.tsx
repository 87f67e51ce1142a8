"use client";
// The top of a run page: what waits (for the reader, for another reviewer) with a link to each card, and a
// finished run's final answer. A link to a card (#approval-…, from the inbox, a webhook or this summary)
// scrolls to it and focuses it, also after a client-side navigation, where the browser's own jump to the
// fragment does not happen.
import { useEffect } from "react";
import type { ShownApproval, ShownConversation } from "@/lib/dto";
import { plural } from "@/lib/format";
import { approvalAnchor } from "@/lib/runner/ids";

const NOUN: Record<string, [string, string]> = {
  tool: ["call", "calls"],
  question: ["question", "questions"],
  llm: ["model call", "model calls"],
  subagent: ["delegation", "delegations"],
};

function counted(items: ShownApproval[]): string {
  const kinds = new Set(items.map((a) => a.kind));
  const [one, many] = kinds.size === 1 ? (NOUN[items[0].kind] ?? NOUN.tool) : ["request", "requests"];
  return plural(items.length, one, many);
}

const linkText = (a: ShownApproval) =>
  a.kind === "question"
    ? `Question (step ${a.step})`
    : a.kind === "llm"
      ? `Model call of step ${a.step}`
      : `${a.tool_name} (step ${a.step})`;

/** Scrolls to the element the URL's fragment names and focuses it; again whenever the fragment changes. */
export function useFocusFragment() {
  useEffect(() => {
    const go = () => {
      const hash = window.location.hash.slice(1);
      if (!hash) return;
      const el = document.getElementById(hash) ?? document.getElementById(decodeURIComponent(hash));
      if (!el) return;
      el.scrollIntoView({ block: "start" });
      el.focus({ preventScroll: true });
    };
    // After the router's own scroll handling of this navigation.
    const frame = requestAnimationFrame(go);
    window.addEventListener("hashchange", go);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener("hashchange", go);
    };
  }, []);
}

export function WaitingSummary({
  approvals,
  canDecide,
  selfForbidden,
}: {
  approvals: ShownApproval[];
  canDecide: boolean;
  selfForbidden: boolean;
}) {
  const pending = approvals.filter((a) => a.status === "pending");
  if (pending.length === 0) return null;
  const mine = pending.filter((a) => canDecide && a.canDecide && !selfForbidden);
  const others = pending.filter((a) => !mine.includes(a));
  const group = (items: ShownApproval[], whom: string, testId: string) =>
    items.length > 0 && (
      <div data-testid={testId}>
        <p className="text-sm font-semibold">
          {counted(items)} {items.length === 1 ? "waits" : "wait"} for {whom}
        </p>
        <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-sm">
          {items.map((a) => (
            <li key={a.id}>
              <a className="text-indigo-700 underline dark:text-indigo-300" href={`#${approvalAnchor(a.id)}`}>
                {linkText(a)}
              </a>
            </li>
          ))}
        </ul>
      </div>
    );
  return (
    <section
      className="card space-y-2 border-l-4 border-l-amber-500 dark:border-l-amber-500"
      aria-label="Waiting for decisions"
      data-testid="waiting-summary"
    >
      {group(mine, "you", "waiting-for-you")}
      {group(others, mine.length > 0 ? "another reviewer" : "a reviewer", "waiting-for-others")}
    </section>
  );
}

/** The last thing the model said in a finished run, when it said it in words (no further tool calls). */
export function FinalAnswer({ conv }: { conv: ShownConversation }) {
  const last = conv.messages.findLast((m) => m.role === "assistant");
  if (last?.role !== "assistant" || !last.content || last.tool_calls.length > 0) return null;
  return (
    <section className="card border-l-4 border-l-emerald-500" aria-label="Final answer">
      <h2 className="text-xs font-semibold uppercase text-slate-600 dark:text-slate-400">Final answer · {conv.agent}</h2>
      <p className="mt-1 whitespace-pre-wrap break-words text-sm" data-testid="final-answer">
        {last.content}
      </p>
    </section>
  );
}
