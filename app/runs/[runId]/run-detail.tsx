"use client";
import { When } from "@/components/when";
import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { RunPageView } from "@/lib/dto";
import type { ActionResult } from "@/lib/http";
import { ErrorBox, Field, JsonView, StateBadge } from "@/components/ui";
import { api, fromAction } from "@/components/api";
import { cancelRunAction, resumeRunAction, retryRunAction } from "./actions";
import { useLive } from "@/components/live";
import { Conversation, ForYourDecision } from "@/components/conversation";
import { READY_TO_RESUME, fmtCost, fmtDuration, phaseWords, plural, runStateWords } from "@/lib/format";
import { FinalAnswer, useFocusFragment, WaitingSummary } from "./waiting-summary";
import { isTerminal } from "@/lib/runner/run-states";

type View = RunPageView;

const OPERATIONS: Record<"resume" | "cancel" | "retry", (runId: string) => Promise<ActionResult<{ id: string }>>> = {
  resume: resumeRunAction,
  cancel: cancelRunAction,
  retry: retryRunAction,
};

export function RunDetail({ initial }: { initial: View }) {
  const id = initial.run.id;
  const qc = useQueryClient();
  // What the model is writing in the current step, as it streams (gone once the response is checkpointed
  // and the conversation shows it).
  const [streaming, setStreaming] = useState<{ step: number; text: string } | null>(null);
  const live = useLive({ run: id }, (e) => {
    if (e.type === "run" && e.data.runId === id) {
      setStreaming(null);
      void qc.invalidateQueries({ queryKey: ["run", id] });
    } else if (e.type === "delta" && e.data.runId === id) {
      const d = e.data;
      setStreaming((s) => {
        if (!s || s.step !== d.step || d.offset === 0) return { step: d.step, text: d.text };
        // Deltas carry their offset: a repeat is skipped, a gap (a message lost between instances) resets.
        if (d.offset < s.text.length)
          return d.offset + d.text.length > s.text.length ? { ...s, text: s.text.slice(0, d.offset) + d.text } : s;
        return d.offset === s.text.length ? { ...s, text: s.text + d.text } : s;
      });
    }
  });
  const { data: view, error } = useQuery({
    queryKey: ["run", id],
    queryFn: () => api<View>(`/api/runs/${encodeURIComponent(id)}`),
    initialData: initial,
    // Pushed while the live stream is up (polled slowly as a safety net); polled while it is down: fast
    // while running, slower while it waits for people.
    refetchInterval: (q) => {
      const state = q.state.data?.run.state ?? "";
      if (isTerminal(state)) return false;
      if (live) return 10_000;
      return state === "paused" ? 3000 : 700;
    },
  });
  const refresh = () => qc.invalidateQueries({ queryKey: ["run", id] });
  const [opError, setOpError] = useState<string | null>(null);
  const op = useMutation({
    mutationFn: (name: keyof typeof OPERATIONS) => fromAction(OPERATIONS[name](id)),
    onSuccess: () => {
      setOpError(null);
      void refresh();
    },
    onError: (e) => setOpError(e.message),
  });
  const r = view.run;
  const started = new Date(r.createdAt).getTime();
  // A live run's duration runs to the server's clock of this view (so server HTML and hydration agree),
  // then, once mounted, ticks with the browser's clock: updates are pushed, so refetches are rare.
  const [tick, setTick] = useState<number | null>(null);
  const ended = !!r.finishedAt || r.state === "paused";
  useEffect(() => {
    if (ended) return;
    const t = setInterval(() => setTick(Date.now()), 1000);
    return () => clearInterval(t);
  }, [ended]);
  useFocusFragment();
  const canDecide = view.permissions.decide && !view.corruption;
  const pending = view.approvals.filter((a) => a.status === "pending");
  // What this reader may decide comes first, above the run's facts and its conversation. A card stays
  // there once decided (here or in another tab) while the run waits: moved, it would lose what the reader
  // had typed in it and jump away from under their eyes. Once the run goes on, the cards go back under
  // their calls and the run's answer comes first.
  const atTop = useRef(new Set<string>()).current;
  if (r.state !== "paused") atTop.clear();
  if (view.conversation) for (const a of pending) if (canDecide && a.canDecide && !view.selfApprovalForbidden) atTop.add(a.id);
  const shownFirst = view.approvals.filter((a) => atTop.has(a.id));
  const end = r.finishedAt ? new Date(r.finishedAt).getTime() : Math.max(view.asOfMs, r.state === "paused" ? 0 : (tick ?? 0));

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">
          {r.agentName} <span className="font-mono text-sm text-slate-500 dark:text-slate-400">{r.id}</span>
        </h1>
        <StateBadge state={r.state} testId="run-state" />
        <span className="text-sm font-medium" data-testid="run-state-words">
          {view.canResume
            ? READY_TO_RESUME
            : // An external run with nothing left to decide waits for its runtime, not for a person.
              view.runtimePickup && r.state === "paused" && pending.length === 0
              ? "Waiting for the runtime"
              : runStateWords(r.state, pending)}
          {view.cancelledBy && (r.state === "cancelled" || r.state === "cancelling") ? ` by ${view.cancelledBy}` : null}
        </span>
        {!isTerminal(r.state) && r.state !== "paused" && (
          <span className="text-xs text-slate-600 dark:text-slate-400" aria-live="polite">
            live · step {r.step} · {r.phase ? phaseWords(r.phase) : "starting"}
          </span>
        )}
        <div className="ml-auto flex flex-wrap items-center gap-2">
          <Link prefetch={false} className="btn-secondary" href={`/runs/${encodeURIComponent(r.id)}/timeline`}>
            Timeline ({view.checkpointCount})
          </Link>
          {/* Only a paused run resumes; a running or finished one showed a disabled button that said calls were pending. */}
          {view.runtimePickup ? (
            // An external run resumes in its own runtime, once it claims the decisions: nothing to press here.
            <span className="text-sm" data-testid="runtime-pickup">
              {view.runtimePickup.waiting > 0 &&
                `Waiting for the runtime to pick up ${plural(view.runtimePickup.waiting, "decision", "decisions")}`}
              {view.runtimePickup.waiting > 0 && view.runtimePickup.overdue > 0 && " · "}
              {view.runtimePickup.overdue > 0 &&
                `The runtime has not reported back on ${plural(view.runtimePickup.overdue, "claimed decision", "claimed decisions")} past the claim's lease`}
            </span>
          ) : (view.permissions.decide || view.permissions.operate) && r.state === "paused" ? (
            <>
              {!view.canResume && (
                // Said in words beside the button, not only in a tooltip a phone never shows.
                <span className="text-xs text-slate-600 dark:text-slate-400" id="resume-why">
                  {view.corruption ? "A record of this run is unreadable" : "Decide every pending call first"}
                </span>
              )}
              <button
                type="button"
                className="btn-primary"
                disabled={!view.canResume || op.isPending}
                aria-describedby={view.canResume ? undefined : "resume-why"}
                onClick={() => op.mutate("resume")}
              >
                Resume
              </button>
            </>
          ) : null}
          {view.permissions.operate && (r.state === "running" || r.state === "paused") && (
            <button
              type="button"
              className="btn-danger"
              disabled={op.isPending}
              onClick={() => confirm("Cancel this run?") && op.mutate("cancel")}
            >
              Cancel
            </button>
          )}
          {view.permissions.operate && r.state === "failed" && !view.corruption && (
            <button type="button" className="btn-secondary" disabled={op.isPending} onClick={() => op.mutate("retry")}>
              Retry
            </button>
          )}
        </div>
      </div>
      {opError && <ErrorBox title="Could not do that">{opError}</ErrorBox>}
      {error && <ErrorBox title="Live refresh failed">{error.message}</ErrorBox>}

      <WaitingSummary approvals={view.approvals} canDecide={canDecide} selfForbidden={view.selfApprovalForbidden} />
      {view.conversation && (
        <ForYourDecision
          conv={view.conversation}
          approvals={shownFirst}
          canDecide={canDecide}
          selfForbidden={view.selfApprovalForbidden}
          onDecided={refresh}
        />
      )}
      {r.state === "completed" && view.conversation && <FinalAnswer conv={view.conversation} />}

      <dl className="card grid grid-cols-2 gap-4 md:grid-cols-5">
        <Field label="Submitted by" value={r.submittedByEmail ?? "—"} />
        <Field label="Model" value={r.model ?? "—"} />
        <Field label="Steps" value={r.step} testId="run-steps" />
        <Field label="Tokens" value={r.totalTokens} />
        <Field label="Cost" value={fmtCost(r.costUsd)} />
        <Field label="Started" value={<When at={r.createdAt} />} />
        <Field label="Duration" value={fmtDuration(end - started)} />
        <Field
          label="Phase"
          value={
            <>
              {phaseWords(r.phase)}
              {r.phase && <span className="block font-mono text-xs text-slate-600 dark:text-slate-400">{r.phase}</span>}
            </>
          }
        />
        {r.forkedFromRunId && (
          <Field
            label="Forked from"
            value={
              <Link
                prefetch={false}
                className="underline"
                data-testid="forked-from"
                title={r.forkedFromRunId}
                href={`/runs/${encodeURIComponent(r.forkedFromRunId)}`}
              >
                run {r.forkedFromRunId.slice(0, 8)}, checkpoint {r.forkedFromSeq}
              </Link>
            }
          />
        )}
        {r.error && <Field label="Error" value={<span className="text-rose-700 dark:text-rose-400">{r.error}</span>} />}
      </dl>

      {view.corruption && (
        <ErrorBox title={view.corruption.error}>
          <p className="mt-1">{view.corruption.message}</p>
          {view.corruption.key && (
            <p className="mt-1 font-mono text-xs" data-testid="corrupt-key">
              key: {view.corruption.key}
            </p>
          )}
          <p className="mt-2">This run cannot be resumed, retried or decided until the record is repaired.</p>
        </ErrorBox>
      )}

      <details className="card">
        <summary className="cursor-pointer text-sm font-medium">Input</summary>
        <JsonView value={r.input} label="Run input" />
      </details>

      {view.conversation ? (
        <Conversation
          conv={view.conversation}
          approvals={view.approvals}
          canDecide={canDecide}
          selfForbidden={view.selfApprovalForbidden}
          onDecided={refresh}
          atTop={atTop}
        />
      ) : (
        !view.corruption && <p className="card text-sm text-slate-500 dark:text-slate-400">The run is starting…</p>
      )}

      {streaming && !isTerminal(r.state) && r.state !== "paused" && (
        <section className="card border-sky-300 dark:border-sky-700" aria-label="Model output, streaming" data-testid="streaming">
          <h2 className="text-sm font-medium text-slate-500 dark:text-slate-400">The model is writing (step {streaming.step})…</h2>
          <p className="mt-1 whitespace-pre-wrap break-words text-sm" aria-live="polite">
            {streaming.text}
          </p>
        </section>
      )}

      {view.deliveries.length > 0 && (
        <section className="card">
          <h2 className="font-semibold">Pause webhook deliveries</h2>
          <table className="table-afk mt-2" aria-label="Webhook deliveries">
            <thead>
              <tr>
                <th>When</th>
                <th>Status</th>
                <th>Attempts</th>
                <th>Last response</th>
              </tr>
            </thead>
            <tbody>
              {view.deliveries.map((d) => (
                <tr key={d.id}>
                  <td>
                    <When at={d.createdAt} />
                  </td>
                  <td>{d.status}</td>
                  <td>{d.attempts}</td>
                  <td>{d.lastError ?? d.lastStatus ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}
