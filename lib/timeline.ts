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
/** A labelled mark on the time axis: `ms` since the first checkpoint of the page, at `x`; its label is drawn
 * anchored at `anchor` (the start mark starts at the axis' left end, one at the right edge ends there). */
export type AxisMark = { x: number; ms: number; label: string; anchor: "start" | "middle" | "end" };
export type TimelineLayout = {
  spans: Span[];
  ticks: Tick[];
  breaks: AxisBreak[];
  axis: AxisMark[];
  /** The label at the right end of the axis (the page's whole length), unless a mark sits there already. */
  axisEnd: AxisMark | null;
  totalMs: number;
  cutMs: number;
};

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
  /** Least room between two labelled axis marks (a short label is about this wide). */
  markPx?: number;
  /** Room right of `right` a label may take. */
  edgePx?: number;
};

// Axis marks. Each segment of a broken axis (the stretch between two cut waits) gets its own round step
// in a unit that fits its length (ms under a second, s under two minutes, min beyond), 1, 2 or 5 × 10^k
// of that unit, and labels written with exactly the decimals that step needs, so two marks never read
// the same: 40 ms left after a 9.5 s pause read 9.50 s, 9.51 s, 9.52 s, not 9.5 s four times.
const UNIT_MS = { ms: 1, s: 1000, min: 60_000 } as const;
type Unit = keyof typeof UNIT_MS;
/** Label width at the picture's 12 px font (digits and the units are about 7 px wide), for spacing. */
const labelPx = (label: string) => label.length * 7;

/** The least 1, 2 or 5 × 10^k at or above `x` (and at or above `least`). */
export function niceStep(x: number, least = 0): number {
  if (!(x > least) || !Number.isFinite(x)) return least > 0 ? least : 1;
  const p = 10 ** Math.floor(Math.log10(x));
  // Rounded to the power's digits so 0.1 × 3 kinds of float noise never reach a label.
  const fix = (n: number) => Number(n.toPrecision(12));
  return [1, 2, 5, 10].map((m) => fix(m * p)).find((s) => s >= x) ?? fix(10 * p);
}

/** The unit a segment `spanMs` long is marked in. */
export function axisUnit(spanMs: number): Unit {
  return spanMs < 1000 ? "ms" : spanMs < 120_000 ? "s" : "min";
}

/** Seconds `ms` (a whole number of ms) with `decimals` (0–3) places, from integers: no float rounding. */
function seconds(ms: number, decimals: number): string {
  const whole = Math.floor(ms / 1000);
  return decimals === 0
    ? String(whole)
    : `${whole}.${String(ms % 1000)
        .padStart(3, "0")
        .slice(0, decimals)}`;
}

/**
 * The label of a time `ms` since the start (a whole number of ms, a multiple of `stepMs`) on a segment
 * ending at `endMs`: written to the precision of `stepMs` (1, 2 or 5 × 10^k ms), in ms while the segment
 * stays under a second, in s under a minute, in min and s beyond (and h and min past an hour).
 */
export function axisLabel(ms: number, stepMs: number, endMs: number): string {
  // Decimals of a second the step needs: 1 ms → 3, 20 ms → 2, 500 ms → 1, 2 s → 0.
  const decimals = stepMs % 1000 === 0 ? 0 : stepMs % 100 === 0 ? 1 : stepMs % 10 === 0 ? 2 : 3;
  if (endMs < 1000) return `${ms} ms`;
  if (ms === 0) return endMs < 60_000 ? "0 s" : "0 min";
  if (endMs < 60_000) return `${seconds(ms, decimals)} s`;
  if (ms < 60_000) return `${seconds(ms, decimals)} s`;
  const min = Math.floor(ms / 60_000);
  const rest = ms % 60_000;
  const head = min >= 60 && rest === 0 && stepMs % 60_000 === 0 ? `${Math.floor(min / 60)} h ${min % 60} min` : `${min} min`;
  return rest === 0 ? head : `${head} ${seconds(rest, decimals)} s`;
}

/** Round marks on each segment `[from, to]` (ms since the start), at `x(ms)`, no two labels overlapping. */
function axisMarks(
  segments: [number, number][],
  x: (ms: number) => number,
  scale: number,
  totalMs: number,
  o: { left: number; right: number; markPx: number; edgePx: number },
): { axis: AxisMark[]; axisEnd: AxisMark | null } {
  const place = (ms: number, at: number, label: string): AxisMark & { l: number; r: number } => {
    const w = labelPx(label);
    const anchor = at <= o.left ? "start" : at + w / 2 > o.right + o.edgePx ? "end" : "middle";
    const l = anchor === "start" ? at : anchor === "end" ? at - w : at - w / 2;
    return { x: at, ms, label, anchor, l, r: l + w };
  };
  const firstEnd = segments[0]?.[1] ?? 0;
  const marks = [place(0, o.left, axisLabel(0, 1, firstEnd))];
  const fits = (m: { x: number; l: number }) => {
    const prev = marks[marks.length - 1];
    return m.x - prev.x >= o.markPx && m.l >= prev.r + 8;
  };
  let last = { stepMs: 1, end: firstEnd };
  if (scale > 0) {
    for (const [a, b] of segments) {
      const unit = axisUnit(b - a);
      // At least a label's width apart (a long label needs more: one try at the next round step).
      const least = unit === "s" ? 0.001 : 1;
      let stepMs = Math.round(niceStep(o.markPx / scale / UNIT_MS[unit], least) * UNIT_MS[unit]);
      const wide = labelPx(axisLabel(Math.floor(b / stepMs) * stepMs, stepMs, b)) + 8;
      if (stepMs * scale < wide) stepMs = Math.round(niceStep(wide / scale / UNIT_MS[unit], least) * UNIT_MS[unit]);
      last = { stepMs, end: b };
      for (let k = Math.max(1, Math.ceil(a / stepMs)); k * stepMs <= b; k++) {
        const m = place(k * stepMs, x(k * stepMs), axisLabel(k * stepMs, stepMs, b));
        if (fits(m)) marks.push(m);
      }
    }
  }
  // The end: its real length, to one decimal place finer than the last segment's step (rounded down, so it
  // never reads as a round mark that is not there).
  const finer = last.stepMs >= 60_000 ? 1000 : Math.max(1, 10 ** (Math.floor(Math.log10(last.stepMs)) - 1));
  const endMs = Math.floor(totalMs / finer) * finer;
  const end = place(endMs, o.right, axisLabel(endMs, finer, last.end));
  const endMark = { ...end, anchor: "end" as const, l: o.right - labelPx(end.label), r: o.right };
  const axisEnd = scale > 0 && endMs > marks[marks.length - 1].ms && fits(endMark) ? endMark : null;
  const strip = ({ x, ms, label, anchor }: AxisMark) => ({ x, ms, label, anchor });
  return { axis: marks.map(strip), axisEnd: axisEnd && strip(axisEnd) };
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
  const o = { breakPx: 28, minGapMs: 1000, gapFactor: 8, markPx: 84, edgePx: 20, ...opts };
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
  // label), the start always marked.
  const segments: [number, number][] = [];
  let from = 0;
  for (const g of cut) {
    segments.push([from, g.from - t0]);
    from = g.to - t0;
  }
  segments.push([from, totalMs]);
  const { axis, axisEnd } = points.length > 0 ? axisMarks(segments, (ms) => x(t0 + ms), scale, totalMs, o) : { axis: [], axisEnd: null };

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
    axisEnd,
    totalMs,
    cutMs,
  };
}

/**
 * A page's points as the page sends them to the browser (the picture and the rows read one copy): columns
 * of differences from the point before (seq +1, the same step, a few ms later: a digit or two each) and each
 * phase named once. As objects, 100 points were 6 KB of the page's Flight payload, 7.5 once escaped in its
 * HTML; packed, about 1.
 */
export type PackedPoints = { seq: number[]; step: number[]; t: number[]; phases: string[]; phase: number[] };

const deltas = (xs: number[]) => xs.map((x, i) => (i === 0 ? x : x - xs[i - 1]));
const sums = (ds: number[]) => {
  let at = 0;
  return ds.map((d) => (at += d));
};

export function packPoints(points: TimelinePoint[]): PackedPoints {
  const phases = [...new Set(points.map((p) => p.phase))];
  const index = new Map(phases.map((p, i) => [p, i]));
  return {
    seq: deltas(points.map((p) => p.seq)),
    step: deltas(points.map((p) => p.step)),
    t: deltas(points.map((p) => p.t)),
    phases,
    phase: points.map((p) => index.get(p.phase) as number),
  };
}

export function unpackPoints(p: PackedPoints): TimelinePoint[] {
  const [seq, step, t] = [sums(p.seq), sums(p.step), sums(p.t)];
  return seq.map((s, i) => ({ seq: s, phase: p.phases[p.phase[i]], step: step[i], t: t[i] }));
}
