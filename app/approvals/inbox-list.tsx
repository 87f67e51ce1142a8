"use client";
// The pending approvals: a table on a desk, a list of cards on a phone (components/card-table.tsx), with its
// cells' names written out and the decision buttons under each card, so a phone decides in one tap and
// nothing scrolls sideways.
import { ApproveButton } from "@/components/approve-button";
import { ForkedFrom } from "@/components/forked-from";
import Link from "next/link";
import { Fragment, useEffect, useRef, useState } from "react";
import { CardRow, CardTable, LabelledCell } from "@/components/card-table";
import type { InboxRowDto } from "@/lib/dto";
import { fmtDuration, fmtTime } from "@/lib/format";
import { approvalAnchor } from "@/lib/runner/ids";

const KIND_LABEL: Record<InboxRowDto["kind"], string> = {
  tool: "Tool call",
  question: "Question",
  llm: "Model call",
  subagent: "Subagent",
};

// A deadline to the minute, on one line.
const fmtDeadline = (ms: number) => `${fmtTime(ms).slice(0, 16)}Z`;

export type InboxListProps = {
  items: InboxRowDto[];
  firstReadOnly: number;
  currentId: string | undefined;
  selected: string[];
  selectedTool: string | null;
  now: number;
  busy: boolean;
  setCursor: (i: number) => void;
  toggle: (a: InboxRowDto) => void;
  open: (a: InboxRowDto) => void;
  decide: (a: InboxRowDto, decision: "approve" | "reject", reason: string) => Promise<void>;
};

export function InboxList(p: InboxListProps) {
  const [rejecting, setRejecting] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  // The current row is kept in view as j/k move it.
  const currentRow = useRef<HTMLTableRowElement>(null);
  useEffect(() => {
    if (p.currentId) currentRow.current?.scrollIntoView({ block: "nearest" });
  }, [p.currentId]);
  return (
    <CardTable
      label="Pending approvals"
      head={
        <>
          <th>
            <span className="sr-only">Select</span>
          </th>
          <th>Agent</th>
          <th>Tool</th>
          <th>Arguments</th>
          <th>Run</th>
          <th>Waiting</th>
          <th className="inbox-wide">Deadline</th>
          <th className="inbox-wide">Approvals</th>
          <th className="sm:hidden">Decide</th>
        </>
      }
    >
      {p.items.map((a, i) => {
        const current = a.id === p.currentId;
        const decidable = a.canDecide && a.kind !== "question";
        return (
          <Fragment key={a.id}>
            {i === p.firstReadOnly && (
              <tr className="bg-slate-50 max-sm:block dark:bg-slate-900">
                <th colSpan={9} scope="colgroup" className="text-left text-xs font-medium text-slate-600 max-sm:block dark:text-slate-300">
                  Routed to groups you are not in: read-only
                </th>
              </tr>
            )}
            <CardRow
              ref={current ? currentRow : undefined}
              data-testid={`inbox-${a.id}`}
              aria-current={current ? "true" : undefined}
              className={current ? "inbox-current" : undefined}
              onClick={() => p.setCursor(i)}
            >
              <td className="inbox-select">
                {decidable && (
                  <input
                    type="checkbox"
                    className="max-sm:size-5"
                    aria-label={`Select ${a.tool} of run ${a.runId.slice(0, 8)}`}
                    checked={p.selected.includes(a.id)}
                    disabled={!!p.selectedTool && a.tool !== p.selectedTool}
                    onChange={() => p.toggle(a)}
                  />
                )}
              </td>
              <td className="inbox-agent">
                {a.agent}
                {a.subRunId ? <span className="cell-note">{`in ${a.rootAgent}`}</span> : null}
              </td>
              <td className="font-mono">
                {a.kind !== "tool" && <span className="inbox-kind">{KIND_LABEL[a.kind]}</span>}
                <span className="whitespace-nowrap">{a.tool}</span>
                {a.groups.length > 0 && (
                  <span className="inbox-groups" data-testid={`routed-${a.id}`}>
                    {`${a.canDecide ? "for" : "read-only · for"} ${a.groups.join(", ")}`}
                  </span>
                )}
              </td>
              <td className="inbox-summary">{a.summary}</td>
              <LabelledCell label="Run">
                <Link prefetch={false} className="inbox-run" href={`/runs/${encodeURIComponent(a.runId)}#${approvalAnchor(a.id)}`}>
                  {a.runId.slice(0, 8)}
                </Link>
                {a.forkedFrom ? <ForkedFrom runId={a.forkedFrom} /> : null}
                <span className="inbox-by">{` by ${a.requestedBy ?? "—"}`}</span>
              </LabelledCell>
              <LabelledCell label="Waiting" className="whitespace-nowrap" title={fmtTime(a.requestedAtMs)}>
                {fmtDuration(p.now - a.requestedAtMs)}
              </LabelledCell>
              <LabelledCell
                label="Deadline"
                className="inbox-wide whitespace-nowrap"
                title={a.deadlineMs ? fmtTime(a.deadlineMs) : undefined}
              >
                {a.deadlineMs ? fmtDeadline(a.deadlineMs) : "none"}
              </LabelledCell>
              <td
                className={
                  a.quorum > 1 || a.approvals
                    ? "inbox-wide labelled whitespace-nowrap"
                    : "inbox-wide labelled whitespace-nowrap max-sm:hidden"
                }
              >
                {a.quorum > 1 ? `${a.approvals} of ${a.quorum} approvals` : a.approvals ? "1 of 1" : "—"}
                {a.decidedByMe ? <span className="cell-note">you approved</span> : null}
              </td>
              <td className="inbox-decide">
                {a.kind === "question" && a.canDecide && (
                  <button type="button" className="btn-secondary mt-1" onClick={() => p.open(a)}>
                    Answer…
                  </button>
                )}
                {decidable && rejecting !== a.id && (
                  <div className="mt-1 flex flex-wrap gap-2">
                    <ApproveButton confirm={a.confirm} disabled={p.busy} onApprove={() => void p.decide(a, "approve", "")} />
                    <button type="button" className="btn-secondary" disabled={p.busy} onClick={() => setRejecting(a.id)}>
                      Reject…
                    </button>
                  </div>
                )}
                {decidable && rejecting === a.id && (
                  <form
                    method="post"
                    className="mt-1 space-y-2"
                    onSubmit={(e) => {
                      e.preventDefault();
                      if (!reason.trim()) return;
                      void p.decide(a, "reject", reason).then(() => {
                        setRejecting(null);
                        setReason("");
                      });
                    }}
                  >
                    <label className="label" htmlFor={`card-reason-${a.id}`}>
                      Reason for rejecting (the model sees it)
                    </label>
                    <textarea
                      id={`card-reason-${a.id}`}
                      className="input"
                      rows={2}
                      ref={(el) => el?.focus()}
                      value={reason}
                      onChange={(e) => setReason(e.target.value)}
                    />
                    <div className="flex gap-2">
                      <button type="button" className="btn-secondary" onClick={() => setRejecting(null)}>
                        Cancel
                      </button>
                      <button type="submit" className="btn-danger" disabled={p.busy || !reason.trim()}>
                        Reject
                      </button>
                    </div>
                  </form>
                )}
              </td>
            </CardRow>
          </Fragment>
        );
      })}
    </CardTable>
  );
}
