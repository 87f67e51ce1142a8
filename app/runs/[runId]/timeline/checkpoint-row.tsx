"use client";
// A timeline page's rows, rendered here from their data: a server component's rows travel twice (as HTML
// and, as markup again, in the Flight payload inlined in the page), a client component's as HTML and their
// props. The points are the ones the page's picture draws (one copy in the payload for both); the notes
// (checkpoint-notes.ts) are worked out on the server, from payloads that stay there.
import { fmtDuration, fmtTime, phaseWords } from "@/lib/format";
import { keys } from "@/lib/runner/keys";
import type { TimelinePoint } from "@/lib/timeline";
import type { CheckpointNote } from "./checkpoint-notes";
import { ComparePick } from "./compare-form";
import { ForkButton } from "./fork-button";
import { PayloadInspector } from "./payload-inspector";

type Picked = { a?: string; b?: string };

// The time of day to the millisecond (checkpoints are often a few ms apart); the date is said once above.
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 23);

/**
 * The rows of a page. `notes`: by seq, for the rows that have one. `prevMs`: the time of the last row of
 * the page before (for the first row's gap); `cursor`: that page's cursor, after which the first row's
 * payload is read (each other row's is read after the key of the row before it).
 */
export function CheckpointRows({
  points,
  notes,
  prevMs,
  cursor,
  runId,
  pick,
  operate,
}: {
  points: TimelinePoint[];
  notes: Record<number, CheckpointNote>;
  prevMs: number | null;
  cursor: string | null;
  runId: string;
  pick: Picked;
  operate: boolean;
}) {
  return points.map((c, i) => {
    const prev = i > 0 ? points[i - 1] : undefined;
    return (
      <CheckpointRow
        key={c.seq}
        c={c}
        why={notes[c.seq] ?? null}
        prevMs={prev ? prev.t : prevMs}
        runId={runId}
        after={prev ? keys.checkpoint(runId, prev.step, prev.seq, prev.phase) : cursor}
        pick={pick}
        operate={operate}
      />
    );
  });
}

/**
 * One checkpoint. On a desktop its fields line up in the columns of the list's header. On a phone it is
 * two lines, as in an event history: seq, the phase in words and the gap since the one before; then its
 * step and why it is there (cut to the line). The rest (raw phase, time, the compare pick, the payload,
 * fork) waits behind its Inspect, which sits at the row's right edge and, opened, shows the lines whole
 * (the `max-md:group-has-[details[open]]/row:` classes). On both, what Inspect opens spans the row.
 */
function CheckpointRow({
  c,
  why,
  prevMs,
  runId,
  after,
  pick,
  operate,
}: {
  c: TimelinePoint;
  why: CheckpointNote | null;
  prevMs: number | null;
  runId: string;
  after: string | null;
  pick: Picked;
  operate: boolean;
}) {
  return (
    <li
      data-testid={`checkpoint-${c.seq}`}
      className="group/row relative grid grid-cols-[minmax(2rem,auto)_minmax(0,1fr)_auto_4rem] gap-x-2 md:gap-x-3 border-b border-slate-100 px-3 py-2 text-sm md:grid-cols-[3rem_3rem_minmax(0,1fr)_7.5rem_5.5rem_8.5rem_6rem] md:items-start dark:border-slate-800"
    >
      <span className="font-mono font-semibold">
        <span className="md:hidden">#</span>
        {c.seq}
      </span>
      <span className="max-md:hidden">{c.step}</span>
      {/* On a phone its two lines are grid items of the row: the second runs on under the gap. */}
      <div className="min-w-0 max-md:contents">
        <p className="max-md:col-start-2 max-md:row-start-1 max-md:flex max-md:min-w-0 max-md:items-baseline max-md:gap-x-2 max-md:group-has-[details[open]]/row:flex-wrap">
          <span className="font-medium max-md:truncate max-md:group-has-[details[open]]/row:whitespace-normal">{phaseWords(c.phase)}</span>{" "}
          <span
            className="font-mono text-xs text-slate-600 max-md:hidden max-md:group-has-[details[open]]/row:inline dark:text-slate-400"
            data-testid="checkpoint-phase"
          >
            {c.phase}
          </span>
          {/* On a phone the radios are behind Inspect: a closed row still says it is picked. */}
          <span
            className="hidden shrink-0 rounded bg-indigo-100 px-1.5 text-xs font-semibold text-indigo-900 max-md:group-has-[details:not([open])_input[name=a]:checked]/row:inline dark:bg-indigo-900 dark:text-indigo-100"
            data-testid="picked"
          >
            from
          </span>
          <span
            className="hidden shrink-0 rounded bg-indigo-100 px-1.5 text-xs font-semibold text-indigo-900 max-md:group-has-[details:not([open])_input[name=b]:checked]/row:inline dark:bg-indigo-900 dark:text-indigo-100"
            data-testid="picked"
          >
            to
          </span>
        </p>
        <p className="text-xs text-slate-600 max-md:col-span-2 max-md:col-start-2 max-md:row-start-2 max-md:truncate max-md:group-has-[details[open]]/row:whitespace-normal dark:text-slate-400">
          <span className="md:hidden">
            step {c.step}
            {why ? " · " : ""}
          </span>
          {why && (
            <>
              <span className="md:hidden max-md:group-has-[details[open]]/row:hidden">{why.short}</span>
              <span className="max-md:hidden max-md:group-has-[details[open]]/row:inline" data-testid="checkpoint-note">
                {why.long}
              </span>
            </>
          )}
        </p>
      </div>
      <time
        dateTime={new Date(c.t).toISOString()}
        title={fmtTime(c.t)}
        className="font-mono text-xs max-md:col-span-2 max-md:col-start-2 max-md:row-start-3 max-md:mt-1 max-md:hidden max-md:group-has-[details[open]]/row:block"
      >
        {clock(c.t)}
      </time>
      <span className="text-xs max-md:col-start-3 max-md:row-start-1 max-md:leading-5 max-md:text-slate-600 max-md:dark:text-slate-400">
        {prevMs == null ? "—" : `+${fmtDuration(c.t - prevMs)}`}
      </span>
      <ComparePick seq={c.seq} pick={pick} />
      <PayloadInspector runId={runId} seq={c.seq} after={after} compare={<ComparePick seq={c.seq} pick={pick} phone />}>
        {operate && <ForkButton runId={runId} seq={c.seq} />}
      </PayloadInspector>
    </li>
  );
}
