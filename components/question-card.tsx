"use client";
// A question the agent asked (askHuman): the question, what the agent knows, and an answer: the form built
// from its answer schema, or text. Declining needs a reason; the model gets either as the call's result.
import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import type { ShownApproval } from "@/lib/dto";
import { fmtTime } from "@/lib/format";
import { approvalAnchor } from "@/lib/runner/ids";
import { decideAction } from "@/app/approvals/actions";
import { fromAction } from "./api";
import { cleanValues, initialValues, type JsonSchema, SchemaFields, type Values } from "./schema-form";
import { StateBadge } from "./ui";
import { ArgFields } from "./arg-fields";
import { answerProblem, fieldMessage } from "@/lib/display-call";
import { ApprovalOutcome, cardTone } from "./approval-state";

type Body = { decision: "respond" | "reject"; reason?: string; answer?: Values };

const text = (v: unknown) => (typeof v === "string" ? v : "");

export function QuestionCard({
  approval: a,
  canDecide,
  selfForbidden,
  onDecided,
}: {
  approval: ShownApproval;
  canDecide: boolean;
  selfForbidden: boolean;
  onDecided: () => void;
}) {
  const schema = a.answerSchema as JsonSchema | null;
  const [values, setValues] = useState<Values>(() => (schema ? initialValues(schema) : {}));
  const [answer, setAnswer] = useState("");
  const [declining, setDeclining] = useState(false);
  const [reason, setReason] = useState("");
  const [err, setErr] = useState<{ field?: string; message: string } | null>(null);
  const m = useMutation({
    mutationFn: (body: Body) => fromAction(decideAction(a.id, { ...body, argsHash: a.argsHash })),
    onSuccess: () => {
      setErr(null);
      onDecided();
    },
    onError: (e: Error & { field?: string }) => setErr({ field: e.field, message: e.message }),
  });
  // The answer form's field an error names ("answer.seats" from the server, "seats" from the form's own
  // check), if the form has it.
  const fieldOf = (e: { field?: string } | null) => {
    const f = e?.field?.replace(/^answer\./, "");
    return f && schema?.properties?.[f] ? f : undefined;
  };
  const given = a.decisions.at(-1);
  const pending = a.status === "pending";
  const decidesHere = pending && canDecide && a.canDecide && !selfForbidden;
  return (
    // Focusable (not in the tab order): a link to this question (#approval-…) scrolls to it and focuses it.
    <div className={cardTone(a.status)} id={approvalAnchor(a.id)} data-testid={`question-${a.tool_call_id}`} tabIndex={-1}>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-semibold">Question</span>
        <StateBadge
          state={a.status}
          label={a.status === "responded" ? "answered" : a.status === "rejected" ? "declined" : undefined}
          testId={`question-status-${a.tool_call_id}`}
        />
        {a.deadline_ms && pending && <span className="text-xs text-slate-600 dark:text-slate-400">answer by {fmtTime(a.deadline_ms)}</span>}
      </div>
      <ApprovalOutcome approval={a} decidesHere={decidesHere} brief />
      <p className="mt-2 whitespace-pre-wrap break-words text-sm font-medium">{text(a.args.question)}</p>
      {text(a.args.context) && (
        <p className="mt-1 whitespace-pre-wrap break-words text-xs text-slate-600 dark:text-slate-300">{text(a.args.context)}</p>
      )}
      {given && (
        <div className="mt-2 text-xs" data-testid="question-outcome">
          <p>
            <span className="font-medium">{given.by}</span> {given.decision === "respond" ? "answered" : "declined"} at{" "}
            {fmtTime(given.at_ms)}
            {given.answer ? ":" : <span className="whitespace-pre-wrap">{` — ${given.reason ?? ""}`}</span>}
          </p>
          {given.answer && (
            <div className="mt-1">
              <ArgFields values={given.answer} schema={schema} label="The answer" />
            </div>
          )}
        </div>
      )}
      {a.groups.length > 0 && (
        <p className="mt-2 text-xs" data-testid="routed-to">
          Routed to {a.groups.join(", ")}
          {pending && canDecide && !a.canDecide ? ": you are in none of these groups, so you may read it but not answer it." : ""}
        </p>
      )}
      {pending && canDecide && a.canDecide && selfForbidden && (
        <p className="mt-2 text-xs">You started this run, so someone else must answer.</p>
      )}
      {decidesHere && (
        <div className="mt-3 space-y-3">
          <form
            method="post"
            className="space-y-2"
            aria-label="Answer"
            onSubmit={(e) => {
              e.preventDefault();
              if (schema) {
                // Checked here first, in words and under its field ("Seats: enter a number"); the server checks again.
                const problem = answerProblem(schema, values);
                if (problem) return setErr(problem);
                return m.mutate({ decision: "respond", answer: cleanValues(values) });
              }
              if (!answer.trim()) return setErr({ field: "reason", message: "Write your answer" });
              m.mutate({ decision: "respond", reason: answer });
            }}
          >
            {schema ? (
              <div className="grid gap-2 md:grid-cols-2">
                <SchemaFields
                  schema={schema}
                  values={values}
                  onChange={(v) => {
                    setValues(v);
                    setErr(null);
                  }}
                  idPrefix={`answer-${a.tool_call_id}`}
                  errorField={fieldOf(err)}
                  errorMessage={
                    err && fieldOf(err) ? fieldMessage(schema, fieldOf(err) ?? "", err.message, values[fieldOf(err) ?? ""]) : undefined
                  }
                />
              </div>
            ) : (
              <>
                <label className="label" htmlFor={`answer-${a.id}`}>
                  Your answer (the model gets it as the result)
                </label>
                <textarea
                  id={`answer-${a.id}`}
                  className="input"
                  rows={3}
                  value={answer}
                  onChange={(e) => setAnswer(e.target.value)}
                  aria-invalid={err?.field === "reason"}
                />
              </>
            )}
            <div className="flex flex-wrap gap-2">
              {/* Hidden while declining: the primary action never sits next to the decline form. */}
              {!declining && (
                <button type="submit" className="btn-primary" disabled={m.isPending}>
                  Send answer
                </button>
              )}
              <button type="button" className="btn-secondary" aria-expanded={declining} onClick={() => setDeclining(!declining)}>
                Decline…
              </button>
            </div>
          </form>
          {declining && (
            <form
              method="post"
              className="space-y-2"
              aria-label="Decline"
              onSubmit={(e) => {
                e.preventDefault();
                if (!reason.trim()) return setErr({ field: "reason", message: "Say why you decline" });
                m.mutate({ decision: "reject", reason });
              }}
            >
              <label className="label" htmlFor={`decline-${a.id}`}>
                Why not (the model sees it)
              </label>
              <textarea
                id={`decline-${a.id}`}
                className="input"
                rows={2}
                value={reason}
                onChange={(e) => setReason(e.target.value)}
                aria-invalid={err?.field === "reason"}
              />
              <button type="submit" className="btn-danger" disabled={m.isPending}>
                Decline
              </button>
            </form>
          )}
        </div>
      )}
      {/* Said once: under its field when the form has that field, else here. */}
      {err && !fieldOf(err) && (
        <p role="alert" className="mt-2 text-xs text-rose-700 dark:text-rose-300">
          {err.message}
        </p>
      )}
    </div>
  );
}
