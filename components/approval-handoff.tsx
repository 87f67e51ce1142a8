"use client";
// The hand-offs of one request under its approval card: who it was reassigned to and by whom, its comment
// thread (plain text), and while it waits a form to comment and, for someone who may decide it (or an
// admin), Reassign. They come with the run view (the card's approval); a change goes through server actions
// that call the same services as the REST API, then the owner of the view reads it again. The server's
// message is shown under the field it names.
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { commentAction, reassignAction } from "@/app/approvals/handoff-actions";
import type { HandoffsDto } from "@/lib/dto";
import { fromAction } from "./api";
import { When } from "./when";

type Err = { field?: string; message: string } | null;

export function ApprovalHandoff({
  approvalId,
  handoffs: h,
  pending,
  onChanged,
}: {
  approvalId: string;
  handoffs: HandoffsDto;
  pending: boolean;
  onChanged: () => void;
}) {
  const [text, setText] = useState("");
  const [open, setOpen] = useState(false);
  const [to, setTo] = useState("");
  const [reason, setReason] = useState("");
  const [err, setErr] = useState<Err>(null);
  const done = () => {
    setErr(null);
    onChanged();
  };
  const fail = (e: Error & { field?: string }) => setErr({ field: e.field, message: e.message });
  const comment = useMutation({
    mutationFn: () => fromAction(commentAction(approvalId, { text })),
    onSuccess: () => {
      setText("");
      done();
    },
    onError: fail,
  });
  const hand = useMutation({
    mutationFn: () =>
      fromAction(
        reassignAction(approvalId, {
          ...(to.includes("@") ? { email: to.trim() } : { group: to.trim() }),
          ...(reason.trim() ? { reason } : {}),
        }),
      ),
    onSuccess: () => {
      setOpen(false);
      setTo("");
      setReason("");
      done();
    },
    onError: fail,
  });
  return (
    <div className="mt-3 space-y-2 text-xs" data-testid="handoff">
      {h.assignment && (
        <p data-testid="reassigned">
          Reassigned to <strong>{h.assignment.to}</strong> by {h.assignment.by} <When at={h.assignment.atMs} />
          {h.assignment.reason && <span className="block whitespace-pre-wrap">{h.assignment.reason}</span>}
        </p>
      )}
      {h.comments.length > 0 && (
        <ul className="space-y-1" aria-label="Comments">
          {h.comments.map((c) => (
            <li key={c.seq} data-testid="comment">
              <span className="font-semibold">{c.byName ?? c.by}</span> <When at={c.atMs} />
              <span className="block whitespace-pre-wrap break-words">{c.text}</span>
            </li>
          ))}
        </ul>
      )}
      {pending && h.canComment && (
        <form
          method="post"
          className="flex flex-wrap items-start gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            comment.mutate();
          }}
        >
          <textarea
            className="input min-w-0 flex-1"
            rows={1}
            maxLength={2000}
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-label="Comment"
            placeholder="Comment for the other reviewers"
          />
          <button type="submit" className="btn-secondary" disabled={comment.isPending || !text.trim()}>
            Comment
          </button>
        </form>
      )}
      {pending && h.canReassign && !open && (
        <button type="button" className="btn-secondary" onClick={() => setOpen(true)}>
          Reassign…
        </button>
      )}
      {pending && h.canReassign && open && (
        <form
          method="post"
          className="flex flex-wrap items-start gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            hand.mutate();
          }}
        >
          <input
            className="input"
            value={to}
            onChange={(e) => setTo(e.target.value)}
            aria-label="Reassign to (a reviewer's email or a routing group)"
            placeholder="reviewer@… or group"
          />
          <input
            className="input min-w-0 flex-1"
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            aria-label="Why (optional)"
            placeholder="Why (optional)"
          />
          <button type="submit" className="btn-primary" disabled={hand.isPending || !to.trim()}>
            Reassign
          </button>
          <button type="button" className="btn-secondary" onClick={() => setOpen(false)}>
            Cancel
          </button>
        </form>
      )}
      {err && (
        <p role="alert" className="text-rose-700 dark:text-rose-300">
          {err.field ? `${err.field}: ` : ""}
          {err.message}
        </p>
      )}
    </div>
  );
}
