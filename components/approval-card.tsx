"use client";
// One approval inline under its tool call: status, quorum, who decided what, and the decisions: approve,
// reject (with a reason), edit the arguments, or respond (answer in the tool's place; it does not run).
// What a decision needs (a reason to reject, a response) is checked by the server, whose message is shown
// under the field it names; the edit preview is the server's own diff (argChanges).
import { When } from "./when";
import { ApproveButton } from "./approve-button";
import { ApprovalHandoff } from "./approval-handoff";
import { useEffect, useMemo, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import type { ShownApproval } from "@/lib/dto";
import { changeView } from "@/lib/display";
import { argChanges } from "@/lib/dto-shared";
import { decideAction } from "@/app/approvals/actions";
import { fromAction } from "./api";
import { CallView } from "./call-view";
import { type JsonSchema, SchemaFields, type Values } from "./schema-form";
import { StateBadge } from "./ui";
import { ApprovalOutcome, cardTone } from "./approval-state";
import { approvalAnchor } from "@/lib/runner/ids";

type Body = { decision: "approve" | "reject" | "respond"; reason?: string; args?: Values; argsHash?: string };

type Decided = Pick<ShownApproval, "status" | "decisions" | "approved_args" | "decided_at_ms">;

export function ApprovalCard({
  approval: given,
  canDecide,
  selfForbidden,
  onDecided,
  onHandedOff = onDecided,
  hideReason = false,
  editSignal = 0,
}: {
  approval: ShownApproval;
  canDecide: boolean;
  selfForbidden: boolean;
  onDecided: () => void;
  /** A comment or a reassignment was saved: read the request again (the run page reads the run again). */
  onHandedOff?: () => void;
  /** The policy's reason is said around the card (the inbox's preview pane). */
  hideReason?: boolean;
  /** Opens the editor each time it grows (the inbox's `e`). */
  editSignal?: number;
}) {
  // What this card's own decision answered, shown at once: the run is read again after it, which on a busy
  // server takes seconds. The request as read wins once it knows of as many decisions.
  const [answered, setAnswered] = useState<Decided | null>(null);
  const newer = answered && given.status === "pending" && answered.decisions.length > given.decisions.length;
  const a: ShownApproval = newer ? { ...given, ...answered } : given;
  const [mode, setMode] = useState<"idle" | "reject" | "edit" | "respond">("idle");
  const [reason, setReason] = useState("");
  const [answer, setAnswer] = useState("");
  const [edited, setEdited] = useState<Values>(a.approved_args ?? a.args);
  const [jsonText, setJsonText] = useState(JSON.stringify(a.approved_args ?? a.args, null, 2));
  // A schema with no fields to show (an external runtime may send `{type: "object"}` alone) edits as JSON.
  const hasFields = Object.keys((a.argsSchema as JsonSchema | null)?.properties ?? {}).length > 0;
  const [useJson, setUseJson] = useState(!hasFields);
  const [err, setErr] = useState<{ field?: string; message: string } | null>(null);
  const m = useMutation({
    // Every decision says which arguments it was made on: edited by someone else meanwhile, it is a 409.
    mutationFn: (body: Body) => fromAction(decideAction(a.id, { ...body, argsHash: a.argsHash })),
    onSuccess: ({ approval: r }) => {
      setErr(null);
      setMode("idle");
      // A quorum's first vote leaves the request pending; the votes so far are shown all the same.
      setAnswered({ status: r.status, decisions: r.decisions, approved_args: r.approved_args, decided_at_ms: r.decided_at_ms });
      onDecided();
    },
    onError: (e: Error & { field?: string }) => setErr({ field: e.field, message: e.message }),
  });
  const approvals = a.decisions.filter((d) => d.decision === "approve").length;
  // An external runtime's interrupt offers only the decisions its runtime can apply (Agents JS and the AI SDK
  // cannot run edited arguments, nor take a response in place of the call).
  const offers = (d: "approve" | "reject" | "edit" | "respond") => !a.external || a.external.decisions.includes(d);
  const editedArgs = useMemo<Values | null>(() => {
    if (!useJson) return edited;
    try {
      const v = JSON.parse(jsonText);
      return v && typeof v === "object" && !Array.isArray(v) ? v : null;
    } catch {
      return null;
    }
  }, [useJson, edited, jsonText]);
  const preview = argChanges(a.args, editedArgs);
  const pending = a.status === "pending";
  // A model call is approved or rejected as it stands; a delegation's task can be edited or answered.
  const isModelCall = a.kind === "llm";
  const decidesHere = pending && canDecide && a.canDecide && !selfForbidden;
  const editable = decidesHere && !isModelCall;
  // Opened from the inbox with `e` (?edit=1#<this card>): start with the editor open. Read after
  // hydration, so the server's HTML and the first client render agree.
  useEffect(() => {
    const url = new URL(window.location.href);
    if (editable && url.searchParams.get("edit") === "1" && url.hash === `#${approvalAnchor(a.id)}`) setMode("edit");
  }, [editable, a.id]);
  useEffect(() => {
    if (editSignal > 0 && editable) setMode("edit");
  }, [editSignal, editable]);
  const draft = mode === "reject" ? reason : mode === "respond" ? answer : "";
  const unsent = !pending && draft.trim() ? draft : null;
  const title = isModelCall ? `Approve the model call of step ${a.step}` : a.kind === "subagent" ? "Approve the delegation" : "Approval";

  return (
    // Focusable (not in the tab order): a link to this approval (#approval-…) scrolls to it and focuses it.
    <div className={cardTone(a.status)} id={approvalAnchor(a.id)} data-testid={`approval-${a.tool_name}`} tabIndex={-1}>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-semibold">{title}</span>
        <StateBadge state={a.status} testId={`approval-status-${a.tool_name}`} />
        {a.mcp && (
          <span
            className="rounded bg-violet-100 px-1.5 py-0.5 text-xs text-violet-900 dark:bg-violet-900 dark:text-violet-100"
            data-testid="mcp-origin"
          >
            MCP server {a.mcp.server} · tool {a.mcp.tool}
          </span>
        )}
        {!hideReason && <span>{a.reason}</span>}
        {a.quorum > 1 && (
          <span data-testid="quorum">
            {approvals} of {a.quorum} approvals
          </span>
        )}
        {a.deadline_ms && pending && (
          <span className="text-xs text-slate-600 dark:text-slate-400">
            deadline <When at={a.deadline_ms} /> (then {a.fallback})
          </span>
        )}
      </div>
      <ApprovalOutcome approval={a} decidesHere={decidesHere} />
      {(a.kind === "tool" || a.kind === "subagent") && (
        <CallView
          toolName={a.tool_name}
          args={a.args}
          approvedArgs={a.approved_args}
          changes={a.changes}
          schema={a.argsSchema}
          pending={pending}
        />
      )}
      {/* A single decision that settled the card is said by its outcome line; several (a quorum) are listed. */}
      {(a.decisions.length > 1 || (pending && a.decisions.length > 0)) && (
        <ul className="mt-2 space-y-1 text-xs" aria-label="Decisions">
          {a.decisions.map((d, i) => (
            <li key={i}>
              <span className="font-medium">{d.by}</span>{" "}
              {d.decision === "approve" ? "approved" : d.decision === "respond" ? "responded" : "rejected"} at{" "}
              <When at={d.at_ms} ago={false} />
              {d.reason ? (
                <>
                  {" "}
                  — <span className="whitespace-pre-wrap">{d.reason}</span>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {a.groups.length > 0 && (
        <p className="mt-2 text-xs" data-testid="routed-to">
          Routed to {a.groups.join(", ")}
          {pending && canDecide && !a.canDecide ? ": you are in none of these groups, so you may read it but not decide it." : ""}
        </p>
      )}
      {pending && canDecide && a.canDecide && selfForbidden && (
        <p className="mt-2 text-xs">You started this run, so someone else must decide.</p>
      )}
      {decidesHere && (
        <div className="mt-3 space-y-3">
          <div className="flex flex-wrap gap-2">
            {/* Only while no form is open: Approve never sits next to (or right above) the reject form. */}
            {mode === "idle" && offers("approve") && (
              <ApproveButton confirm={a.confirm} disabled={m.isPending} onApprove={() => m.mutate({ decision: "approve" })} />
            )}
            {offers("reject") && (
              <button
                type="button"
                className="btn-secondary"
                aria-expanded={mode === "reject"}
                onClick={() => setMode(mode === "reject" ? "idle" : "reject")}
              >
                Reject…
              </button>
            )}
            {!isModelCall && offers("edit") && (
              <button
                type="button"
                className="btn-secondary"
                aria-expanded={mode === "edit"}
                onClick={() => setMode(mode === "edit" ? "idle" : "edit")}
              >
                {a.kind === "subagent" ? "Edit the task…" : "Edit arguments…"}
              </button>
            )}
            {!isModelCall && offers("respond") && (
              <button
                type="button"
                className="btn-secondary"
                aria-expanded={mode === "respond"}
                onClick={() => setMode(mode === "respond" ? "idle" : "respond")}
              >
                Respond…
              </button>
            )}
          </div>
          {mode === "respond" && (
            <form
              method="post"
              className="space-y-2"
              onSubmit={(e) => {
                e.preventDefault();
                m.mutate({ decision: "respond", reason: answer });
              }}
            >
              <label className="label" htmlFor={`respond-${a.id}`}>
                Your response ({a.tool_name} does not run; the model gets this as its result)
              </label>
              <textarea
                id={`respond-${a.id}`}
                className="input"
                rows={3}
                value={answer}
                onChange={(e) => setAnswer(e.target.value)}
                aria-invalid={err?.field === "reason"}
              />
              <button type="submit" className="btn-primary" disabled={m.isPending}>
                Send response
              </button>
            </form>
          )}
          {mode === "reject" && (
            <form
              method="post"
              className="space-y-2"
              onSubmit={(e) => {
                e.preventDefault();
                m.mutate({ decision: "reject", reason });
              }}
            >
              <label className="label" htmlFor={`reason-${a.id}`}>
                Reason (the model sees it)
              </label>
              <textarea
                id={`reason-${a.id}`}
                className="input"
                rows={2}
                value={reason}
                onChange={(e) => setReason(e.target.value)}
                aria-invalid={err?.field === "reason"}
                // biome-ignore lint/a11y/noAutofocus: the form opens on the reviewer's own click, to be typed in
                autoFocus
              />
              <div className="flex flex-wrap gap-2">
                <button type="submit" className="btn-danger" disabled={m.isPending}>
                  Reject
                </button>
                <button type="button" className="btn-secondary" onClick={() => setMode("idle")}>
                  Cancel
                </button>
              </div>
            </form>
          )}
          {mode === "edit" && (
            <form
              method="post"
              className="space-y-2"
              onSubmit={(e) => {
                e.preventDefault();
                if (!editedArgs) return setErr({ field: "args", message: "Arguments must be a JSON object" });
                m.mutate({ decision: "approve", args: editedArgs });
              }}
            >
              {hasFields && (
                <label className="flex items-center gap-2 text-xs">
                  <input type="checkbox" checked={useJson} onChange={(e) => setUseJson(e.target.checked)} /> Edit as JSON
                </label>
              )}
              {useJson ? (
                <>
                  <label className="label" htmlFor={`json-${a.id}`}>
                    Arguments (JSON)
                  </label>
                  <textarea
                    id={`json-${a.id}`}
                    className="input font-mono"
                    rows={6}
                    value={jsonText}
                    onChange={(e) => setJsonText(e.target.value)}
                  />
                </>
              ) : (
                <div className="grid gap-2 md:grid-cols-2">
                  <SchemaFields
                    schema={a.argsSchema as JsonSchema}
                    values={edited}
                    onChange={setEdited}
                    idPrefix={`edit-${a.tool_call_id}`}
                    errorField={err?.field?.replace(/^args\./, "")}
                    errorMessage={err?.message}
                  />
                </div>
              )}
              {preview.length > 0 && (
                <ul className="text-xs" aria-label="Changes to the arguments">
                  {preview.map((c) => {
                    const v = changeView(c, a.argsSchema);
                    return (
                      <li key={c.field} className="break-words">
                        {v.label}: {v.before} → {v.after}
                      </li>
                    );
                  })}
                </ul>
              )}
              <button type="submit" className="btn-primary" disabled={m.isPending || !editedArgs}>
                Approve with these arguments
              </button>
            </form>
          )}
        </div>
      )}
      <ApprovalHandoff approvalId={a.id} handoffs={a.handoffs} pending={pending} onChanged={onHandedOff} />
      {unsent && (
        // Decided elsewhere (another tab, another reviewer) while a reason or an answer was being typed: it
        // stays here to copy, and says it was not sent.
        <div role="status" className="mt-3 space-y-1 text-xs" data-testid="draft-unsent">
          <p>Decided meanwhile, so what you wrote was not sent:</p>
          <textarea className="input w-full" readOnly rows={2} value={unsent} aria-label="What you wrote (not sent)" />
        </div>
      )}
      {err && (
        <p role="alert" className="mt-2 text-xs text-rose-700 dark:text-rose-300">
          {err.message}
        </p>
      )}
    </div>
  );
}
