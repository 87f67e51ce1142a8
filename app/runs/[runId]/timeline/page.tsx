import Link from "next/link";
import { pageActor } from "@/lib/auth/server";
import { errorText } from "@/lib/dto";
import { expectedFailure, notFoundOr } from "@/lib/http";
import { appContext } from "@/lib/context";
import { allows } from "@/lib/services/access";
import { queryObject } from "@/lib/services/schemas";
import { diffCheckpoints, timelinePage } from "@/lib/services/timeline";
import { ErrorBox, StateBadge } from "@/components/ui";
import { fmtCost, fmtDuration, fmtTime, plural } from "@/lib/format";
import { TimelinePicture } from "@/components/timeline-picture";
import { packPoints } from "@/lib/timeline";
import { CheckpointRows } from "./checkpoint-row";
import { notesOf } from "./checkpoint-notes";
import { CompareForm } from "./compare-form";
import { afterFirstScreen } from "./first-screen";
import { TimelinePager } from "./pager";

export const dynamic = "force-dynamic";

export default async function TimelinePage({
  params,
  searchParams,
}: {
  params: Promise<{ runId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await pageActor();
  const { runId } = await params;
  const sp = queryObject(await searchParams);
  const page = await timelinePage(appContext(), actor, { runId, query: { cursor: sp.cursor, take: sp.take } }).catch(notFoundOr);
  let diff: Awaited<ReturnType<typeof diffCheckpoints>> | null = null;
  let diffError: string | null = null;
  if (sp.a !== undefined && sp.b !== undefined) {
    diff = await diffCheckpoints(appContext(), actor, { runId, query: { a: sp.a, b: sp.b } }).catch((e) => {
      diffError = errorText(expectedFailure(e));
      return null;
    });
  }
  const cps = page.checkpoints;
  // What the picture draws and the rows show, one copy for both in the Flight payload, packed (lib/timeline.ts).
  const points = cps.map((c) => ({ seq: c.seq, phase: c.phase, step: c.step, t: c.timestamp_ms }));
  const packed = packPoints(points);
  // An external run has no checkpoint of its own to fork from.
  const operate = allows(actor, "runs:operate") && !page.run.framework;
  const rid = encodeURIComponent(runId);
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">Timeline · {page.run.agentName}</h1>
        <Link prefetch={false} className="font-mono text-sm text-indigo-600 underline dark:text-indigo-400" href={`/runs/${rid}`}>
          {runId}
        </Link>
        <StateBadge state={page.run.state} />
      </div>

      {page.run.framework && (
        <p className="card text-sm" data-testid="external-timeline">
          Run by its own runtime ({page.run.framework}): what it reported (phases, messages, tool results, its state) and what this console
          held for it (each interrupt parked, decided and claimed).
        </p>
      )}
      {page.run.prunedAt && (
        <p role="status" className="card text-sm" data-testid="pruned">
          Retention pruned {plural(page.run.prunedCheckpoints, "intermediate checkpoint")} of this run on {fmtTime(page.run.prunedAt)}. The
          terminal record, the conversation, approvals and the audit log are kept.
        </p>
      )}
      {page.corrupt.length > 0 && (
        <ErrorBox title="AgentCheckpointCorruptionError">
          <p className="mt-1">
            {plural(page.corrupt.length, "checkpoint record")} on this page could not be read and {page.corrupt.length === 1 ? "is" : "are"}{" "}
            left out of the list.
          </p>
          <ul className="mt-1 font-mono text-xs">
            {page.corrupt.map((c) => (
              <li key={c.key} data-testid="corrupt-key">
                key: {c.key}
              </li>
            ))}
          </ul>
        </ErrorBox>
      )}
      {diffError && <ErrorBox title="Cannot compare">{diffError}</ErrorBox>}
      {diff && <DiffView diff={diff} />}

      {cps.length > 0 && <TimelinePicture points={packed} />}

      {cps.length > 0 && (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          Times are UTC, on {fmtTime(cps[0].timestamp_ms).slice(0, 10)}. Open a checkpoint&apos;s Inspect to see what it saved
          {/* On a phone the compare radios are in there too. */}
          {operate ? (
            <>
              <span className="md:hidden">, to pick it for a comparison</span> or to fork a new run from it
            </>
          ) : (
            <span className="md:hidden"> or to pick it for a comparison</span>
          )}
          .
        </p>
      )}
      <CompareForm cursor={sp.cursor} initial={{ a: sp.a, b: sp.b }}>
        {/* A header for the columns the rows line up in on a desktop; on a phone each row is two lines. */}
        <div aria-hidden="true" className="cp-head">
          <span>Seq</span>
          <span>Step</span>
          <span>Phase</span>
          <span>Time</span>
          <span>Gap</span>
          <span>Compare</span>
          <span>Payload</span>
        </div>
        <ol aria-label="Checkpoints">
          <CheckpointRows
            points={packed}
            notes={notesOf(cps)}
            prevMs={page.prevTimestampMs}
            cursor={sp.cursor ?? null}
            runId={runId}
            pick={{ a: sp.a, b: sp.b }}
            operate={operate}
            external={!!page.run.framework}
          />
        </ol>
      </CompareForm>
      <TimelinePager
        runId={runId}
        later={!!sp.cursor}
        next={page.nextCursor}
        afterScreen={afterFirstScreen(runId, points, !!page.run.framework)}
      />
    </div>
  );
}

function DiffView({ diff }: { diff: Awaited<ReturnType<typeof diffCheckpoints>> }) {
  const rows: [string, unknown, unknown][] = [
    ["phase", diff.from.phase, diff.to.phase],
    ["step", diff.from.step, diff.to.step],
    ["state", diff.from.state, diff.to.state],
    ["messages", diff.from.messageCount, diff.to.messageCount],
    ["LLM calls", diff.from.llmCalls, diff.to.llmCalls],
    ["tool calls", diff.from.toolCalls, diff.to.toolCalls],
    ["tokens", diff.from.totalTokens, diff.to.totalTokens],
    ["cost", fmtCost(diff.from.costUsd), fmtCost(diff.to.costUsd)],
    [
      "pending response",
      diff.from.pending ? `${diff.from.pending.toolCalls.join(", ") || "text"}` : "none",
      diff.to.pending ? `${diff.to.pending.toolCalls.join(", ") || "text"}` : "none",
    ],
    [
      "time",
      fmtTime(diff.from.timestampMs),
      `${fmtTime(diff.to.timestampMs)} (+${fmtDuration(diff.to.timestampMs - diff.from.timestampMs)})`,
    ],
  ];
  return (
    <section className="card space-y-3" aria-label="Checkpoint diff">
      <h2 className="font-semibold">
        Checkpoint {diff.from.seq} → {diff.to.seq}
      </h2>
      {/* Long values (tool names, times) wrap at phone width instead of pushing the table out of its card. */}
      <div className="overflow-x-auto">
        <table className="table-afk" aria-label="Changed fields">
          <thead>
            <tr>
              <th className="w-px pr-0">
                <span className="sr-only">Changed?</span>
              </th>
              <th>Field</th>
              <th>From</th>
              <th>To</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([k, a, b]) => {
              const changed = JSON.stringify(a) !== JSON.stringify(b);
              // A changed row: a strong tint, a thick edge and the word "changed", not a colour alone.
              return (
                <tr
                  key={k}
                  className={changed ? "bg-amber-100 font-semibold dark:bg-amber-900" : "text-slate-600 dark:text-slate-400"}
                  data-changed={changed}
                >
                  <td
                    className={`w-px pr-0 max-md:pl-1.5 ${changed ? "border-l-4 border-l-amber-600 dark:border-l-amber-400" : "border-l-4 border-l-transparent"}`}
                  >
                    {changed && (
                      <span className="inline-block rounded bg-amber-800 px-1.5 py-0.5 text-xs font-semibold text-white dark:bg-amber-200 dark:text-amber-950">
                        {/* A mark on a phone, the word where there is room; the word is read out either way. */}
                        <span aria-hidden="true" className="md:hidden">
                          ≠
                        </span>
                        <span className="max-md:sr-only">changed</span>
                      </span>
                    )}
                  </td>
                  <td className="max-md:px-1.5">{k}</td>
                  <td className="font-mono wrap-anywhere max-md:px-1.5 max-md:text-xs">{String(a ?? "—")}</td>
                  <td className="font-mono wrap-anywhere max-md:px-1.5 max-md:text-xs">{String(b ?? "—")}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div>
        <h3 className="text-sm font-semibold">Messages added ({diff.messagesAdded.length})</h3>
        <ol className="mt-1 space-y-1" aria-label="Messages added">
          {diff.messagesAdded.map((m, i) => {
            const msg = m as { role?: string; content?: string; tool_calls?: { name: string }[] };
            return (
              <li key={i} className="text-sm">
                <span className="font-semibold">{msg.role}</span>
                {msg.tool_calls?.length ? (
                  <span className="font-mono text-xs"> calls {msg.tool_calls.map((t) => t.name).join(", ")}</span>
                ) : null}
                <span className="block whitespace-pre-wrap break-words">{msg.content}</span>
              </li>
            );
          })}
        </ol>
      </div>
      {[diff.from, diff.to]
        .filter((s) => s.snapshotFromSeq !== s.seq)
        .map((s) => (
          <p key={s.seq} className="text-xs text-slate-600 dark:text-slate-400" data-testid="snapshot-note">
            {s.snapshotFromSeq == null
              ? `Checkpoint ${s.seq} saved no copy of the conversation and no earlier one did, so its messages, calls, tokens and cost are not known.`
              : `Checkpoint ${s.seq} did not save its own copy of the conversation (only the start of a run or a step, and the end of a model call or a tool batch do), so its messages, calls, tokens and cost are those saved at checkpoint ${s.snapshotFromSeq}, the last one before it that did.`}
          </p>
        ))}
    </section>
  );
}
