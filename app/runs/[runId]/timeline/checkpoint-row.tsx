"use client";
// A timeline page's rows, rendered here from their data: a server component's rows travel twice (as HTML
// and, as markup again, in the Flight payload inlined in the page), a client component's as HTML and their
// props. The points are the ones the page's picture draws (one copy in the payload for both); the notes
// (checkpoint-notes.ts) are worked out on the server, from payloads that stay there.
import { useHydrated } from "@/components/use-hydrated";
import { fmtDuration, fmtTime, phaseWords } from "@/lib/format";
import { type PackedPoints, type TimelinePoint, unpackPoints } from "@/lib/timeline";
import { useMemo } from "react";
import type { CheckpointNote } from "./checkpoint-notes";
import { ComparePick } from "./compare-form";
import { FIRST_ROWS, cursorAfter } from "./first-screen";
import { ForkButton } from "./fork-button";
import { PayloadInspector } from "./payload-inspector";

type Picked = { a?: string; b?: string };

// The time of day to the millisecond (checkpoints are often a few ms apart); the date is said once above.
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 23);

/**
 * The rows of a page. `notes`: by seq, for the rows that have one. `prevMs`: the time of the last row of
 * the page before (for the first row's gap); `cursor`: that page's cursor, after which the first row's
 * payload is read (each other row's is read after the key of the row before it). The server's HTML has the
 * first screen of them (first-screen.ts); the browser renders the rest once hydrated.
 */
export function CheckpointRows({
  points: packed,
  notes,
  prevMs,
  cursor,
  runId,
  pick,
  operate,
  external,
}: {
  points: PackedPoints;
  notes: Record<number, CheckpointNote>;
  prevMs: number | null;
  cursor: string | null;
  runId: string;
  pick: Picked;
  operate: boolean;
  /** An external run's: its cursors are seqs, not checkpoint keys. */
  external: boolean;
}) {
  const points = useMemo(() => unpackPoints(packed), [packed]);
  const hydrated = useHydrated();
  const shown = hydrated ? points : points.slice(0, FIRST_ROWS);
  return shown.map((c, i) => {
    const prev = i > 0 ? points[i - 1] : undefined;
    return (
      <CheckpointRow
        key={c.seq}
        c={c}
        why={notes[c.seq] ?? null}
        prevMs={prev ? prev.t : prevMs}
        runId={runId}
        after={prev ? cursorAfter(runId, prev, external) : cursor}
        pick={hydrated ? pick : null}
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
 * (the `max-md:group-has-[details[open]]/row:` variants of its cp-* utilities, app/globals.css). On both,
 * what Inspect opens spans the row. `pick`: null until the browser has hydrated, and the row has no compare
 * radios then (with the picked marks, half a row's HTML): without JavaScript the compare form asks for the
 * two checkpoints by number instead (compare-form.tsx).
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
  pick: Picked | null;
  operate: boolean;
}) {
  return (
    <li data-testid={`checkpoint-${c.seq}`} className="group/row cp-row">
      <span className="cp-seq">
        <span className="md:hidden">#</span>
        {c.seq}
      </span>
      <span className="max-md:hidden">{c.step}</span>
      {/* On a phone its two lines are grid items of the row: the second runs on under the gap. */}
      <div className="cp-lines">
        <p className="cp-line1">
          <span className="cp-words">{phaseWords(c.phase)}</span>{" "}
          <span className="cp-raw-phase" data-testid="checkpoint-phase">
            {c.phase}
          </span>
          {/* On a phone the radios are behind Inspect: a closed row still says it is picked. */}
          {pick && (
            <>
              <span className="cp-picked-a" data-testid="picked">
                from
              </span>
              <span className="cp-picked-b" data-testid="picked">
                to
              </span>
            </>
          )}
        </p>
        <p className="cp-line2">
          {/* One text node (two would be joined by a comment in the HTML). */}
          <span className="md:hidden">{`step ${c.step}${why ? " · " : ""}`}</span>
          {why && (
            <>
              <span className="cp-note-short">{why.short}</span>
              <span className="cp-note-long" data-testid="checkpoint-note">
                {why.long}
              </span>
            </>
          )}
        </p>
      </div>
      <time dateTime={new Date(c.t).toISOString()} title={fmtTime(c.t)} className="cp-time">
        {clock(c.t)}
      </time>
      <span className="cp-gap">{prevMs == null ? "—" : `+${fmtDuration(c.t - prevMs)}`}</span>
      {pick && <ComparePick seq={c.seq} pick={pick} />}
      <PayloadInspector runId={runId} seq={c.seq} after={after} compare={pick && <ComparePick seq={c.seq} pick={pick} phone />}>
        {operate && <ForkButton runId={runId} seq={c.seq} />}
      </PayloadInspector>
    </li>
  );
}
