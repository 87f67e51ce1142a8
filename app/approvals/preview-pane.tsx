"use client";
// The inbox's preview pane: the current request whole, beside the list on a desk and above it on a phone,
// so a reviewer decides without opening the run: its summary, why the policy stopped it, the results of
// earlier calls that bear on it (the order's total beside its refund, with a warning when it asks for
// more), its card with the decisions (approve, reject with a reason, edit, respond; a question's answer
// form), and the conversation that led to it. Deciding hands the pane to the next request. The model's and
// the tools' words are untrusted: text nodes only, cut by the service.
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { api } from "@/components/api";
import { ApprovalCard } from "@/components/approval-card";
import { GateView } from "@/components/call-view";
import { QuestionCard } from "@/components/question-card";
import { ErrorBox } from "@/components/ui";
import type { ApprovalPreviewDto, InboxRowDto, PreviewMessage } from "@/lib/dto";
import { fmtDuration, fmtTime } from "@/lib/format";
import { approvalAnchor } from "@/lib/runner/ids";

const KIND: Record<InboxRowDto["kind"], string> = {
  tool: "Tool call",
  question: "Question",
  llm: "Model call",
  subagent: "Delegation",
};

const who = (m: PreviewMessage) =>
  m.role === "user"
    ? "User"
    : m.role === "tool"
      ? `Result of ${m.name ?? "a tool"} · untrusted`
      : `Assistant${m.name ? ` · ${m.name}` : ""}`;

export function PreviewPane({
  item,
  now,
  editSignal,
  onDecided,
}: {
  item: InboxRowDto;
  now: number;
  /** Grows on each `e`: the card opens its editor. */
  editSignal: number;
  onDecided: (item: InboxRowDto) => void;
}) {
  const { data, error, refetch } = useQuery({
    // The arguments' hash in the key: an edit elsewhere is a new request to read.
    queryKey: ["preview", item.id, item.argsHash],
    queryFn: () => api<ApprovalPreviewDto>(`/api/approvals/${encodeURIComponent(item.id)}/preview`),
    staleTime: 5_000,
  });
  const a = data?.approval;
  const last = data?.excerpt.at(-1);
  return (
    <section className="card space-y-3" aria-labelledby="preview-title" data-testid="preview">
      <header>
        <h2 id="preview-title" className="text-base font-semibold">
          {KIND[item.kind]} <span className="break-all font-mono">{item.tool}</span>
          <span className="font-normal text-slate-600 dark:text-slate-400"> · {item.agent}</span>
        </h2>
        <p className="mt-1 whitespace-pre-wrap break-words text-sm" data-testid="preview-summary">
          {item.summary}
        </p>
        <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          Run{" "}
          <Link
            prefetch={false}
            className="font-mono text-indigo-700 underline dark:text-indigo-300"
            href={`/runs/${encodeURIComponent(item.runId)}#${approvalAnchor(item.id)}`}
          >
            {item.runId.slice(0, 8)}
          </Link>
          {` by ${item.requestedBy ?? "—"} · waiting ${fmtDuration(now - item.requestedAtMs)}`}
          {item.deadlineMs ? ` · deadline ${fmtTime(item.deadlineMs)}` : " · no deadline"}
        </p>
      </header>
      {error && <ErrorBox title="Could not load this request">{error.message}</ErrorBox>}
      {!data && !error && <p className="text-sm text-slate-600 dark:text-slate-400">Loading the request…</p>}
      {data && a && (
        <>
          <p className="text-sm" data-testid="preview-reason">
            <span className="font-medium">Why it waits:</span> {a.reason}
          </p>
          {data.checks.length > 0 && (
            <div
              className="rounded-md border border-amber-500 bg-amber-50 p-2 text-sm text-amber-950 dark:border-amber-500 dark:bg-amber-950 dark:text-amber-50"
              data-testid="preview-checks"
            >
              <p className="font-semibold">
                <span aria-hidden="true">⚠ </span>Check before approving
              </p>
              <ul className="list-disc pl-5">
                {data.checks.map((c) => (
                  <li key={`${c.field} ${c.message}`}>{c.message}</li>
                ))}
              </ul>
            </div>
          )}
          {data.related.map((r) => (
            <section key={r.callId} aria-label={`What ${r.tool} returned`} data-testid={`related-${r.tool}`}>
              <h3 className="text-xs font-semibold text-slate-600 dark:text-slate-400">
                Earlier: what <span className="font-mono">{r.tool}</span> returned · untrusted tool output
              </h3>
              <dl className="mt-1 grid grid-cols-[minmax(0,auto)_minmax(0,1fr)] gap-x-3 text-sm">
                {r.fields.map((f) => (
                  <div key={f.key} className="contents">
                    <dt className="text-slate-600 dark:text-slate-400">{f.label}</dt>
                    <dd className="break-words">{f.text}</dd>
                  </div>
                ))}
              </dl>
            </section>
          ))}
          {a.kind === "llm" && <GateView args={a.args} lastMessage={last ? { who: who(last), text: last.text } : null} />}
          {a.kind === "question" ? (
            <QuestionCard approval={a} canDecide selfForbidden={data.selfApprovalForbidden} onDecided={() => onDecided(item)} />
          ) : (
            <ApprovalCard
              approval={a}
              canDecide
              selfForbidden={data.selfApprovalForbidden}
              onDecided={() => onDecided(item)}
              onHandedOff={() => void refetch()}
              hideReason
              editSignal={editSignal}
            />
          )}
          {data.excerpt.length > 0 && (
            <section aria-labelledby="preview-excerpt">
              <h3 id="preview-excerpt" className="text-xs font-semibold text-slate-600 dark:text-slate-400">
                How it came to this
              </h3>
              <ol className="mt-1 space-y-2" data-testid="preview-excerpt">
                {data.excerpt.map((m, i) => (
                  <li key={i} className="border-l-2 border-slate-300 pl-2 dark:border-slate-600">
                    <p className="text-xs text-slate-600 dark:text-slate-400">{who(m)}</p>
                    <p className="msg-text">{m.text}</p>
                    {m.cut && <p className="text-xs text-slate-600 dark:text-slate-400">(cut: the whole message is on the run page)</p>}
                  </li>
                ))}
              </ol>
            </section>
          )}
        </>
      )}
    </section>
  );
}
