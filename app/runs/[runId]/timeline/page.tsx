import Link from "next/link";
import { pageActor } from "@/lib/auth/server";
import { errorText } from "@/lib/dto";
import { expectedFailure, notFoundOr } from "@/lib/http";
import { appContext } from "@/lib/context";
import { allows } from "@/lib/services/access";
import { queryObject } from "@/lib/services/schemas";
import { diffCheckpoints, timelinePage } from "@/lib/services/timeline";
import { ErrorBox, JsonView, StateBadge } from "@/components/ui";
import { fmtCost, fmtDuration, fmtTime } from "@/lib/format";
import { TimelinePicture } from "@/components/timeline-picture";
import { ForkButton } from "./fork-button";

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
  // An external run has no checkpoint of its own to fork from.
  const operate = allows(actor, "runs:operate") && !page.run.framework;
  const next = page.nextCursor ? `?${new URLSearchParams({ cursor: page.nextCursor })}` : null;
  const rid = encodeURIComponent(runId);
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">Timeline · {page.run.agentName}</h1>
        <Link className="font-mono text-sm text-indigo-600 underline dark:text-indigo-400" href={`/runs/${rid}`}>
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
          Retention pruned {page.run.prunedCheckpoints} intermediate checkpoint(s) of this run on {fmtTime(page.run.prunedAt)}. The terminal
          record, the conversation, approvals and the audit log are kept.
        </p>
      )}
      {page.corrupt.length > 0 && (
        <ErrorBox title="AgentCheckpointCorruptionError">
          <p className="mt-1">{page.corrupt.length} checkpoint record(s) on this page could not be read; they are left out of the table.</p>
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

      {cps.length > 0 && (
        <TimelinePicture checkpoints={cps.map((c) => ({ seq: c.seq, phase: c.phase, step: c.step, t: c.timestamp_ms }))} />
      )}

      <form id="diff-form" method="get" className="flex items-center gap-3">
        {sp.cursor && <input type="hidden" name="cursor" value={sp.cursor} />}
        <button type="submit" className="btn-secondary">
          Compare selected
        </button>
        <span className="text-xs text-slate-500 dark:text-slate-400">Pick a “from” and a “to” checkpoint.</span>
      </form>
      <div className="card overflow-x-auto p-0">
        <table className="table-afk" aria-label="Checkpoints">
          <thead>
            <tr>
              <th>Seq</th>
              <th>Step</th>
              <th>Phase</th>
              <th>Time</th>
              <th>Gap</th>
              <th>From</th>
              <th>To</th>
              <th>Payload</th>
              {operate && (
                <th>
                  <span className="sr-only">Fork</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {cps.map((c, i) => {
              const prev = i > 0 ? cps[i - 1].timestamp_ms : page.prevTimestampMs;
              return (
                <tr key={c.seq} data-testid={`checkpoint-${c.seq}`}>
                  <td className="font-mono">{c.seq}</td>
                  <td>{c.step}</td>
                  <td className="font-mono">{c.phase}</td>
                  <td>{fmtTime(c.timestamp_ms)}</td>
                  <td>{prev == null ? "—" : `+${fmtDuration(c.timestamp_ms - prev)}`}</td>
                  <td>
                    <input
                      type="radio"
                      form="diff-form"
                      name="a"
                      value={c.seq}
                      defaultChecked={sp.a === String(c.seq)}
                      aria-label={`Compare from checkpoint ${c.seq}`}
                    />
                  </td>
                  <td>
                    <input
                      type="radio"
                      form="diff-form"
                      name="b"
                      value={c.seq}
                      defaultChecked={sp.b === String(c.seq)}
                      aria-label={`Compare to checkpoint ${c.seq}`}
                    />
                  </td>
                  <td className="max-w-md">
                    <details>
                      <summary className="cursor-pointer text-xs">Inspect</summary>
                      <JsonView value={c.payload} label={`Payload of checkpoint ${c.seq}`} />
                    </details>
                  </td>
                  {operate && (
                    <td>
                      <ForkButton runId={runId} seq={c.seq} />
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div className="flex gap-3">
        {sp.cursor && (
          <Link className="btn-secondary" href={`/runs/${rid}/timeline`}>
            ← First page
          </Link>
        )}
        {next && (
          <Link className="btn-secondary" href={`/runs/${rid}/timeline${next}`}>
            Next page →
          </Link>
        )}
      </div>
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
              <th>Field</th>
              <th>From</th>
              <th>To</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([k, a, b]) => {
              const changed = JSON.stringify(a) !== JSON.stringify(b);
              return (
                <tr key={k} className={changed ? "bg-amber-50 dark:bg-amber-950" : ""} data-changed={changed}>
                  <td>{k}</td>
                  <td className="font-mono wrap-anywhere">{String(a ?? "—")}</td>
                  <td className="font-mono wrap-anywhere">{String(b ?? "—")}</td>
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
      {diff.from.snapshotFromSeq !== diff.from.seq && (
        <p className="text-xs text-slate-500 dark:text-slate-400">
          Counters of a checkpoint without its own snapshot come from the snapshot at seq {diff.from.snapshotFromSeq ?? "—"}.
        </p>
      )}
    </section>
  );
}
