// Layout of the timeline picture: spans of work per step on a time axis that is broken where the run
// waited. A five-minute pause drawn to scale would squash every step next to it into one pixel, so pauses
// (paused → resumed) and long idle gaps are cut to a fixed width and labelled with their real length.
// Work (a model call, a tool batch, a subagent batch) is never cut: a slow model call is what the
// operator came to see.
import type { Phase } from "./runner/checkpoint";

export type TimelinePoint = { seq: number; phase: string; step: number; t: number };
export type SpanKind = "llm" | "tools" | "subagents" | "paused";
export type Span = { kind: SpanKind; step: number; x1: number; x2: number; ms: number | null; interrupted: boolean; label: string };
export type AxisBreak = { from: number; to: number; x1: number; x2: number; ms: number; paused: boolean };
export type Tick = { seq: number; x: number; label: string };
/** A labelled mark on the time axis: `ms` since the first checkpoint of the page, at `x`. */
export type AxisMark = { x: number; ms: number };
export type TimelineLayout = { spans: Span[]; ticks: Tick[]; breaks: AxisBreak[]; axis: AxisMark[]; totalMs: number; cutMs: number };

export const SPAN_KINDS: { kind: SpanKind; start: Phase; end: Phase; label: string }[] = [
  { kind: "llm", start: "pre_llm", end: "post_llm", label: "LLM" },
  { kind: "tools", start: "pre_tool_batch", end: "post_tool_batch", label: "tools" },
  { kind: "subagents", start: "pre_subagent_batch", end: "post_subagent_batch", label: "subagents" },
  { kind: "paused", start: "paused", end: "resumed", label: "paused" },
];

export type LayoutOptions = {
  left: number;
  right: number;
  /** Width a cut gap takes on the axis. */
  breakPx?: number;
  /** An idle gap shorter than this is drawn to scale. */
  minGapMs?: number;
  /** An idle gap is cut only when it is this many times the median gap between checkpoints. */
  gapFactor?: number;
  /** Least room between two labelled axis marks (a label is about this wide). */
  markPx?: number;
};

// Round steps for axis marks: 1, 2, 5 × 10^k ms.
function niceStep(ms: number): number {
  if (!(ms > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(ms));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= ms) ?? 10 * p;
}

type Interval = { from: number; to: number; kind: SpanKind; step: number; open: boolean; interrupted: boolean };

// A boundary of the run's life ends whatever work was open: a tool batch that paused for an approval, a
// model call the process died in (re-entered after a takeover), a batch of a run that then failed.
const BOUNDARIES = new Set<string>(["paused", "resumed", "run_started", "step_started", "run_terminal"]);

function intervals(points: TimelinePoint[]): Interval[] {
  const out: Interval[] = [];
  const open = new Map<SpanKind, TimelinePoint>();
  const close = (kind: SpanKind, at: TimelinePoint, interrupted: boolean) => {
    const from = open.get(kind);
    if (!from) return;
    out.push({ from: from.t, to: at.t, kind, step: from.step, open: false, interrupted });
    open.delete(kind);
  };
  for (const c of points) {
    for (const s of SPAN_KINDS) {
      if (c.phase === s.end) close(s.kind, c, false);
      else if (s.kind === "paused") {
        // A pause ends when the run resumes or ends (cancelled, expired).
        if (c.phase === "run_terminal") close(s.kind, c, false);
      } else if (BOUNDARIES.has(c.phase) || c.phase === s.start || (s.kind === "llm" && open.has("llm"))) {
        // Nothing is checkpointed inside a model call, so anything after pre_llm but post_llm means no
        // answer came (a re-entered step that replays a stored response, or a crash).
        close(s.kind, c, true);
      }
      // One `paused` checkpoint per pending approval: the pause starts at the first.
      if (c.phase === s.start && !open.has(s.kind)) open.set(s.kind, c);
    }
  }
  // Still open at the end of the page (a run paused now, or the next page closes it).
  const last = points[points.length - 1];
  for (const [kind, from] of open) out.push({ from: from.t, to: last.t, kind, step: from.step, open: true, interrupted: false });
  return out;
}

function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Which gaps between consecutive checkpoint times are cut: pauses, and long gaps that no work covers. */
function cuts(times: number[], spans: Interval[], o: Required<Omit<LayoutOptions, "left" | "right">>) {
  const gaps = times.slice(1).map((t, i) => ({ from: times[i], to: t }));
  const typical = median(gaps.map((g) => g.to - g.from).filter((d) => d > 0));
  const within = (g: { from: number; to: number }, kinds: SpanKind[]) =>
    spans.some((s) => kinds.includes(s.kind) && !s.interrupted && s.from <= g.from && g.to <= s.to);
  return gaps
    .filter((g) => g.to - g.from >= o.minGapMs)
    .filter((g) => !within(g, ["llm", "tools", "subagents"]))
    .filter((g) => within(g, ["paused"]) || g.to - g.from >= o.gapFactor * typical)
    .map((g) => ({ ...g, paused: within(g, ["paused"]) }));
}

export function timelineLayout(points: TimelinePoint[], opts: LayoutOptions): TimelineLayout {
  const o = { breakPx: 28, minGapMs: 1000, gapFactor: 8, markPx: 84, ...opts };
  const times = [...new Set(points.map((p) => p.t))].sort((a, b) => a - b);
  const t0 = times[0] ?? 0;
  const totalMs = (times[times.length - 1] ?? 0) - t0;
  const spans = intervals(points);
  const cut = cuts(times, spans, o);
  const cutMs = cut.reduce((n, g) => n + (g.to - g.from), 0);
  // A span still open at the end (a run paused now) gets room after the last checkpoint to be seen.
  const width = o.right - o.left - (spans.some((s) => s.open) ? o.breakPx : 0);
  // Many pauses on one page: breaks share at most half the width so the steps keep the rest.
  const breakPx = cut.length === 0 ? 0 : Math.min(o.breakPx, width / 2 / cut.length);
  const linearMs = totalMs - cutMs;
  const scale = linearMs > 0 ? (width - breakPx * cut.length) / linearMs : 0;

  const x = (t: number): number => {
    let px = o.left;
    let at = t0;
    for (const g of cut) {
      if (t <= g.from) break;
      px += (g.from - at) * scale;
      if (t < g.to) return px + ((t - g.from) / (g.to - g.from)) * breakPx;
      px += breakPx;
      at = g.to;
    }
    return Math.min(px + (t - at) * scale, o.right);
  };

  // Marks at round times since the start, only where the axis runs to scale (a cut wait has its own
  // label), at least markPx apart, the start always marked.
  const axis: AxisMark[] = [];
  if (points.length > 0) {
    const step = scale > 0 ? niceStep(o.markPx / scale) : 1;
    const segments: [number, number][] = [];
    let from = t0;
    for (const g of cut) {
      segments.push([from, g.from]);
      from = g.to;
    }
    segments.push([from, t0 + totalMs]);
    for (const [a, b] of segments) {
      for (let k = Math.ceil((a - t0) / step); t0 + k * step <= b && scale > 0; k++) {
        const mark = { x: x(t0 + k * step), ms: k * step };
        if (axis.length === 0 || mark.x - axis[axis.length - 1].x >= o.markPx) axis.push(mark);
      }
    }
    if (axis.length === 0 || axis[0].ms !== 0) axis.unshift({ x: o.left, ms: 0 });
  }

  const label = SPAN_KINDS.reduce<Record<string, string>>((m, s) => Object.assign(m, { [s.kind]: s.label }), {});
  return {
    spans: spans.map((s) => ({
      kind: s.kind,
      step: s.step,
      x1: x(s.from),
      // A span shorter than a pixel stays visible.
      x2: Math.max(s.open ? o.right : x(s.to), x(s.from) + 2),
      ms: s.open ? null : s.to - s.from,
      interrupted: s.interrupted,
      label: label[s.kind],
    })),
    ticks: points.map((p) => ({ seq: p.seq, x: x(p.t), label: `#${p.seq} ${p.phase} (step ${p.step})` })),
    breaks: cut.map((g) => ({ ...g, ms: g.to - g.from, x1: x(g.from), x2: x(g.from) + breakPx })),
    axis,
    totalMs,
    cutMs,
  };
}
