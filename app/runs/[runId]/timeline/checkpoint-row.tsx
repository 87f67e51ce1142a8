import type { timelinePage } from "@/lib/services/timeline";
import { fmtDuration, fmtTime, phaseWords } from "@/lib/format";
import { parseApprovalId } from "@/lib/runner/ids";
import { ComparePick } from "./compare-form";
import { ForkButton } from "./fork-button";
import { PayloadInspector } from "./payload-inspector";

export type Checkpoint = Awaited<ReturnType<typeof timelinePage>>["checkpoints"][number];

// The time of day to the millisecond (checkpoints are often a few ms apart); the date is said once above.
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 23);

/**
 * Why a checkpoint is there, where its phase alone does not say: which call a pause waits for, a repeat.
 * `short` is for a phone's one secondary line, `long` for a desktop and an opened row.
 */
function note(c: Checkpoint, prev: Checkpoint | undefined): { short: string; long: string } | null {
  const payload = (c.payload ?? {}) as { approval_id?: unknown; waiting_for?: unknown };
  const call = typeof payload.approval_id === "string" ? (parseApprovalId(payload.approval_id)?.toolCallId ?? null) : null;
  const what = payload.waiting_for === "approval" || !payload.waiting_for ? "a decision" : `an ${String(payload.waiting_for)}`;
  if (c.phase === "paused" && prev?.phase === "paused")
    return {
      short: call ? `waits on ${call} too` : "paused again",
      long: `Paused again: one checkpoint is written per call that waits${call ? `; this one is for ${call}` : ""}.`,
    };
  if (c.phase === "paused") return call ? { short: `waits on ${call}`, long: `Waits for ${what} on ${call}.` } : null;
  if (prev?.phase === c.phase)
    return { short: "re-entered", long: "The same phase again: the step was re-entered (after a resume or a restart)." };
  return null;
}

/**
 * One checkpoint. On a desktop its fields line up in the columns of the list's header. On a phone it is
 * two lines, as in an event history: seq, the phase in words and the gap since the one before; then its
 * step and why it is there (cut to the line). The rest (raw phase, time, the compare pick, the payload,
 * fork) waits behind its Inspect, which sits at the row's right edge and, opened, shows the lines whole
 * (the `max-md:group-has-[details[open]]/row:` classes). On both, what Inspect opens spans the row.
 */
export function CheckpointRow({
  c,
  prev,
  prevMs,
  runId,
  after,
  pick,
  operate,
}: {
  c: Checkpoint;
  prev: Checkpoint | undefined;
  prevMs: number | null;
  runId: string;
  after: string | null;
  pick: { a?: string; b?: string };
  operate: boolean;
}) {
  const why = note(c, prev);
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
        dateTime={new Date(c.timestamp_ms).toISOString()}
        title={fmtTime(c.timestamp_ms)}
        className="font-mono text-xs max-md:col-span-2 max-md:col-start-2 max-md:row-start-3 max-md:mt-1 max-md:hidden max-md:group-has-[details[open]]/row:block"
      >
        {clock(c.timestamp_ms)}
      </time>
      <span className="text-xs max-md:col-start-3 max-md:row-start-1 max-md:leading-5 max-md:text-slate-600 max-md:dark:text-slate-400">
        {prevMs == null ? "—" : `+${fmtDuration(c.timestamp_ms - prevMs)}`}
      </span>
      <ComparePick seq={c.seq} pick={pick} />
      <PayloadInspector runId={runId} seq={c.seq} after={after} compare={<ComparePick seq={c.seq} pick={pick} phone />}>
        {operate && <ForkButton runId={runId} seq={c.seq} />}
      </PayloadInspector>
    </li>
  );
}
