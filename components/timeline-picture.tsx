// The checkpoints of one timeline page on a time axis: a tick per checkpoint, spans per step for model
// calls, tool batches, subagent batches and pauses, and the axis broken (╱╱) where the run waited.
import { fmtDuration } from "@/lib/format";
import { SPAN_KINDS, type SpanKind, type TimelinePoint, timelineLayout } from "@/lib/timeline";

const COLOR: Record<SpanKind, string> = { llm: "#6366f1", tools: "#10b981", subagents: "#0ea5e9", paused: "#f59e0b" };
const ROW: Record<SpanKind, number> = { llm: 0, tools: 1, subagents: 2, paused: 3 };
const W = 900;
const AXIS_Y = 104;

export function TimelinePicture({ checkpoints }: { checkpoints: TimelinePoint[] }) {
  const layout = timelineLayout(checkpoints, { left: 70, right: W - 20 });
  const cut = layout.breaks.length;
  const summary =
    `Timeline picture of ${checkpoints.length} checkpoints over ${fmtDuration(layout.totalMs)}` +
    (cut ? `; ${cut} wait(s) totalling ${fmtDuration(layout.cutMs)} drawn cut short` : "");
  return (
    // Scrolls sideways on a phone: focusable so the keyboard can scroll it too.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1)
    <figure className="card overflow-x-auto" tabIndex={0}>
      <svg viewBox={`0 0 ${W} 140`} className="w-full min-w-[600px]" role="img" aria-label={summary} data-testid="timeline-picture">
        {SPAN_KINDS.map((s) => (
          <text key={s.kind} x={4} y={18 + ROW[s.kind] * 22} fontSize="10" fill="currentColor">
            {s.label}
          </text>
        ))}
        {layout.breaks.map((b) => (
          <g key={b.from} data-testid="axis-break" data-ms={b.ms} data-paused={b.paused}>
            <rect x={b.x1} y={4} width={b.x2 - b.x1} height={AXIS_Y - 4} fill="currentColor" opacity={0.06} />
            <path
              d={`M${b.x1 + 4},${AXIS_Y + 6} l6,-12 M${b.x2 - 10},${AXIS_Y + 6} l6,-12`}
              stroke="currentColor"
              strokeWidth={1.5}
              fill="none"
            />
            <text x={(b.x1 + b.x2) / 2} y={AXIS_Y + 30} fontSize="9" textAnchor="middle" fill="currentColor">
              {fmtDuration(b.ms)}
            </text>
            <title>{`${b.paused ? "Paused" : "Idle"} for ${fmtDuration(b.ms)} (axis cut short)`}</title>
          </g>
        ))}
        {layout.spans.map((s, i) => (
          <rect
            key={`${s.kind}-${i}`}
            data-testid={`span-${s.kind}`}
            data-step={s.step}
            data-interrupted={s.interrupted}
            x={s.x1}
            y={8 + ROW[s.kind] * 22}
            width={s.x2 - s.x1}
            height={14}
            fill={COLOR[s.kind]}
            rx={2}
          >
            <title>{`${s.label} step ${s.step}: ${s.ms == null ? "open" : fmtDuration(s.ms)}${s.interrupted ? " (interrupted)" : ""}`}</title>
          </rect>
        ))}
        <line x1={70} x2={W - 20} y1={AXIS_Y} y2={AXIS_Y} stroke="currentColor" strokeWidth={0.5} />
        {layout.ticks.map((c) => (
          <line key={c.seq} x1={c.x} x2={c.x} y1={AXIS_Y - 6} y2={AXIS_Y + 6} stroke="currentColor" strokeWidth={1}>
            <title>{c.label}</title>
          </line>
        ))}
        <text x={70} y={AXIS_Y + 20} fontSize="10" fill="currentColor">
          0 ms
        </text>
        <text x={W - 20} y={AXIS_Y + 20} fontSize="10" textAnchor="end" fill="currentColor">
          {fmtDuration(layout.totalMs)}
        </text>
      </svg>
      <figcaption className="text-xs text-slate-600 dark:text-slate-400">
        Spans: LLM calls, tool batches, subagent batches, pauses. Ticks: checkpoints.
        {cut > 0 && ` ╱╱ marks a wait cut short (pauses and idle gaps over a second); its real length is written under it.`}
      </figcaption>
    </figure>
  );
}
