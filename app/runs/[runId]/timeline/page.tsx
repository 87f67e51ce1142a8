import type { Metadata } from "next";
import Link from "next/link";
import { pageActor } from "@/lib/auth/server";
import { errorText } from "@/lib/dto";
import { expectedFailure, notFoundOr } from "@/lib/http";
import { appContext } from "@/lib/context";
import { allows } from "@/lib/services/access";
import { queryObject } from "@/lib/services/schemas";
import { diffCheckpoints, timelinePage } from "@/lib/services/timeline";
import { ErrorBox, StateBadge } from "@/components/ui";
import { fmtTime, plural } from "@/lib/format";
import { TimelinePicture } from "@/components/timeline-picture";
import { packPoints } from "@/lib/timeline";
import { CheckpointRows } from "./checkpoint-row";
import { notesOf } from "./checkpoint-notes";
import { CompareForm } from "./compare-form";
import { diffData } from "./diff-data";
import { DiffView } from "./diff-view";
import { afterFirstScreen } from "./first-screen";
import { TimelinePager } from "./pager";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ runId: string }> }): Promise<Metadata> {
  return { title: `Timeline of run ${(await params).runId.slice(0, 8)}` };
}

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
      {diff && <DiffView diff={diffData(diff)} />}

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
