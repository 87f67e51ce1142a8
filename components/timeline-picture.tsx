"use client";
// The checkpoints of one timeline page on a time axis: a tick per checkpoint, spans per step for model
// calls, tool batches, subagent batches and pauses, the axis broken (╱╱) where the run waited, and marks
// with times along it. Laid out at the width it is shown at (one unit a pixel), so labels keep their size
// on a phone and the picture never scrolls sideways; the server's HTML is laid out for a desktop width.
// Until the browser has measured that width (and without JavaScript) the picture is drawn plain: spans and
// ticks with no title or test ids, the ticks one path (a 100-checkpoint picture: 15.5 KB of HTML → 5.8).
// Measured, it is drawn again whole.
import { useEffect, useMemo, useRef, useState } from "react";
import { fmtDuration, plural } from "@/lib/format";
import { type PackedPoints, SPAN_KINDS, type SpanKind, timelineLayout, unpackPoints } from "@/lib/timeline";

const COLOR: Record<SpanKind, string> = { llm: "#6366f1", tools: "#10b981", subagents: "#0ea5e9", paused: "#f59e0b" };
const ROW: Record<SpanKind, number> = { llm: 0, tools: 1, subagents: 2, paused: 3 };
const LEFT = 70;
const RIGHT_PAD = 24;
const AXIS_Y = 104;
const HEIGHT = 164;
// Coordinates to a tenth of a pixel: the layout's full doubles (77.55339805825243) were most of the
// picture's bytes in the HTML and again in nothing the eye can tell apart.
const px = (n: number) => Math.round(n * 10) / 10;

export function TimelinePicture({ points }: { points: PackedPoints }) {
  const checkpoints = useMemo(() => unpackPoints(points), [points]);
  const box = useRef<HTMLDivElement>(null);
  // null: not measured yet (the server's HTML, hydration); the picture is drawn plain at a desktop width.
  const [measured, setW] = useState<number | null>(null);
  const W = measured ?? 900;
  const plain = measured === null;
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setW(Math.max(280, Math.round(el.clientWidth)));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const right = W - RIGHT_PAD;
  const layout = timelineLayout(checkpoints, { left: LEFT, right });
  const cut = layout.breaks.length;
  const summary =
    `Timeline picture of ${plural(checkpoints.length, "checkpoint")} over ${fmtDuration(layout.totalMs)}` +
    (cut ? `; ${plural(cut, "wait")} totalling ${fmtDuration(layout.cutMs)} drawn cut short` : "");
  return (
    <figure className="card">
      <div ref={box}>
        <svg
          viewBox={`0 0 ${W} ${HEIGHT}`}
          width="100%"
          className="block"
          role="img"
          aria-label={summary}
          data-testid="timeline-picture"
          fontSize="12"
        >
          {SPAN_KINDS.map((s) => (
            <text key={s.kind} x={0} y={20 + ROW[s.kind] * 22} fill="currentColor">
              {s.label}
            </text>
          ))}
          {layout.breaks.map((b) => (
            <g key={b.from} data-testid="axis-break" data-ms={b.ms} data-paused={b.paused}>
              <rect x={px(b.x1)} y={4} width={px(b.x2 - b.x1)} height={AXIS_Y - 4} fill="currentColor" opacity={0.08} />
              <path
                d={`M${px(b.x1 + 4)},${AXIS_Y + 6} l6,-12 M${px(b.x2 - 10)},${AXIS_Y + 6} l6,-12`}
                stroke="currentColor"
                strokeWidth={1.5}
                fill="none"
              />
              <text x={px((b.x1 + b.x2) / 2)} y={AXIS_Y + 44} textAnchor="middle" fill="currentColor" fontWeight="600">
                {fmtDuration(b.ms)}
              </text>
              <title>{`${b.paused ? "Paused" : "Idle"} for ${fmtDuration(b.ms)} (axis cut short)`}</title>
            </g>
          ))}
          {/* Plain: no test ids or hover titles until the width is measured. */}
          {layout.spans.map((s, i) => (
            <rect
              key={`${s.kind}-${i}`}
              data-testid={plain ? undefined : `span-${s.kind}`}
              data-step={plain ? undefined : s.step}
              data-interrupted={plain ? undefined : s.interrupted}
              x={px(s.x1)}
              y={8 + ROW[s.kind] * 22}
              width={px(s.x2 - s.x1)}
              height={14}
              fill={COLOR[s.kind]}
              rx={2}
            >
              {plain ? null : (
                <title>{`${s.label} step ${s.step}: ${s.ms == null ? "open" : fmtDuration(s.ms)}${s.interrupted ? " (interrupted)" : ""}`}</title>
              )}
            </rect>
          ))}
          <line data-testid="axis-line" x1={LEFT} x2={right} y1={AXIS_Y} y2={AXIS_Y} stroke="currentColor" strokeWidth={0.75} />
          {/* A tick per checkpoint (each its own element, for its title): the stroke said once, on the group. */}
          <g stroke="currentColor" strokeWidth={1} fill="none">
            {plain ? (
              <path d={layout.ticks.map((c) => `M${px(c.x)} ${AXIS_Y - 6}v12`).join("")} />
            ) : (
              layout.ticks.map((c) => (
                <path key={c.seq} d={`M${px(c.x)} ${AXIS_Y - 6}v12`}>
                  <title>{c.label}</title>
                </path>
              ))
            )}
          </g>
          <g data-testid="axis-marks">
            {layout.axis.map((m) => (
              <g key={m.ms}>
                <line x1={px(m.x)} x2={px(m.x)} y1={AXIS_Y + 6} y2={AXIS_Y + 12} stroke="currentColor" strokeWidth={1} />
                <text x={px(m.x)} y={AXIS_Y + 26} textAnchor={m.anchor} fill="currentColor">
                  {m.label}
                </text>
              </g>
            ))}
            {layout.axisEnd && (
              <text x={px(layout.axisEnd.x)} y={AXIS_Y + 26} textAnchor="end" fill="currentColor">
                {layout.axisEnd.label}
              </text>
            )}
          </g>
          <text x={LEFT} y={HEIGHT - 4} fill="currentColor" fontSize="11">
            time since the first checkpoint of this page
          </text>
        </svg>
      </div>
      <figcaption className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        Bars: model calls, tool batches, subagent batches, pauses. Short ticks on the axis: checkpoints.
        {cut > 0 && ` ╱╱ marks a wait cut short (a pause, or an idle gap over a second); its real length is written under it.`}
      </figcaption>
    </figure>
  );
}
