// The timeline picture's axis: a five-minute pause is cut to a fixed width so the steps next to it keep
// their size; idle gaps are cut only when long and unusual; work (model calls, tools) is never cut.
import { describe, expect, it } from "vitest";
import { axisLabel, axisUnit, niceStep, packPoints, type TimelinePoint, timelineLayout, unpackPoints } from "@/lib/timeline";

/** One step: step_started, a model call of `llm` ms, a tool batch of `tool` ms. */
function step(seq: number, step: number, t: number, llm = 40, tool = 20): TimelinePoint[] {
  return [
    { seq, phase: "step_started", step, t },
    { seq: seq + 1, phase: "pre_llm", step, t: t + 2 },
    { seq: seq + 2, phase: "post_llm", step, t: t + 2 + llm },
    { seq: seq + 3, phase: "pre_tool_batch", step, t: t + 4 + llm },
    { seq: seq + 4, phase: "post_tool_batch", step, t: t + 4 + llm + tool },
  ];
}

const opts = { left: 70, right: 880 };
const width = (l: ReturnType<typeof timelineLayout>, kind: string) => l.spans.filter((s) => s.kind === kind).map((s) => s.x2 - s.x1);

describe("timeline layout", () => {
  const FIVE_MIN = 5 * 60_000;
  const t0 = 1_700_000_000_000;
  const before = step(1, 1, t0);
  const paused = { seq: 6, phase: "paused", step: 2, t: t0 + 70 };
  const resumed = { seq: 7, phase: "resumed", step: 2, t: t0 + 70 + FIVE_MIN };
  const after = step(8, 2, resumed.t + 1);
  const run = [...before, paused, resumed, ...after, { seq: 13, phase: "run_terminal", step: 2, t: resumed.t + 70 }];

  it("cuts a five-minute pause to a fixed width and labels it with its real length", () => {
    const l = timelineLayout(run, opts);
    expect(l.breaks).toHaveLength(1);
    expect(l.breaks[0]).toMatchObject({ ms: FIVE_MIN, paused: true });
    expect(l.breaks[0].x2 - l.breaks[0].x1).toBe(28);
    expect(l.cutMs).toBe(FIVE_MIN);
    expect(l.totalMs).toBe(FIVE_MIN + 140);
    // Each 40 ms model call takes a visible share of the remaining 782 px (to scale it would be 0.1 px).
    for (const w of width(l, "llm")) expect(w).toBeGreaterThan(150);
    // The axis keeps its order and ends at the right edge.
    const xs = l.ticks.map((t) => t.x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(xs.at(-1)).toBeCloseTo(880, 6);
    expect(xs[0]).toBe(70);
    // The pause span covers the break.
    const p = l.spans.find((s) => s.kind === "paused")!;
    expect(p.ms).toBe(FIVE_MIN);
    expect(p.x1).toBeLessThanOrEqual(l.breaks[0].x1);
    expect(p.x2).toBeGreaterThanOrEqual(l.breaks[0].x2);
  });

  it("draws a run without waits to scale, as before", () => {
    const l = timelineLayout(before, opts);
    expect(l.breaks).toEqual([]);
    const scale = 810 / l.totalMs;
    expect(width(l, "llm")[0]).toBeCloseTo(40 * scale, 6);
    expect(width(l, "tools")[0]).toBeCloseTo(20 * scale, 6);
  });

  it("never cuts work: a 30-second model call is drawn to scale", () => {
    const slow = [...step(1, 1, t0, 30_000), ...step(6, 2, t0 + 30_030)];
    const l = timelineLayout(slow, opts);
    expect(l.breaks).toEqual([]);
    expect(width(l, "llm")[0]).toBeGreaterThan(700);
  });

  it("cuts a long idle gap that no work covers (a run waiting for a worker), not a short one", () => {
    const idle = [...step(1, 1, t0), ...step(6, 2, t0 + 64 + 90_000)];
    const l = timelineLayout(idle, opts);
    expect(l.breaks).toHaveLength(1);
    expect(l.breaks[0]).toMatchObject({ ms: 90_000, paused: false });
    // 900 ms between steps whose checkpoints are a few ms apart: under the one-second floor, kept.
    expect(timelineLayout([...step(1, 1, t0), ...step(6, 2, t0 + 64 + 900)], opts).breaks).toEqual([]);
  });

  it("a run paused now (open span at the end of the page) and many pauses keep the steps visible", () => {
    const open = timelineLayout([...before, paused, { ...paused, seq: 7, phase: "resumed", t: paused.t + 1 }], opts);
    expect(open.breaks).toEqual([]);
    const stillPaused = timelineLayout([...before, paused], opts);
    const now = stillPaused.spans.find((s) => s.kind === "paused")!;
    expect(now).toMatchObject({ ms: null, x2: 880 });
    expect(now.x1).toBeCloseTo(852, 6);
    // 40 pauses on one page: breaks share at most half the width.
    const many: TimelinePoint[] = [];
    let t = t0;
    for (let i = 0; i < 40; i++) {
      many.push(...step(i * 7, i, t), { seq: i * 7 + 5, phase: "paused", step: i, t: t + 70 });
      t += 70 + 60_000;
      many.push({ seq: i * 7 + 6, phase: "resumed", step: i, t });
    }
    const l = timelineLayout(many, opts);
    expect(l.breaks).toHaveLength(40);
    expect(l.breaks.reduce((n, b) => n + b.x2 - b.x1, 0)).toBeCloseTo(405, 6);
    for (const w of width(l, "llm")) expect(w).toBeGreaterThan(5);
  });

  it("labels the axis with round times, never closer than a label's width, none inside a cut wait", () => {
    const l = timelineLayout(run, opts);
    const xs = l.axis.map((m) => m.x);
    expect(l.axis[0]).toEqual({ x: 70, ms: 0, label: "0 ms", anchor: "start" });
    expect(l.axis.length).toBeGreaterThanOrEqual(5);
    for (let i = 1; i < xs.length; i++) expect(xs[i] - xs[i - 1]).toBeGreaterThanOrEqual(84);
    // Round steps (1, 2, 5 × 10^k ms from the start), the real time since the start: after the cut
    // pause the marks say five minutes and more.
    const step = l.axis[1].ms;
    expect(String(step / 10 ** Math.floor(Math.log10(step)))).toMatch(/^[125]$/);
    for (const m of l.axis) expect(m.ms % step).toBe(0);
    expect(l.axis.some((m) => m.ms > FIVE_MIN)).toBe(true);
    const b = l.breaks[0];
    for (const m of l.axis) expect(m.x <= b.x1 || m.x >= b.x2).toBe(true);
    // A narrow (phone) axis keeps its labels apart too: fewer of them.
    const narrow = timelineLayout(run, { left: 70, right: 300 });
    expect(narrow.axis.length).toBeLessThan(l.axis.length);
    for (let i = 1; i < narrow.axis.length; i++) expect(narrow.axis[i].x - narrow.axis[i - 1].x).toBeGreaterThanOrEqual(84);
  });

  it("an empty page and a single checkpoint lay out without NaN", () => {
    expect(timelineLayout([], opts)).toMatchObject({ spans: [], ticks: [], breaks: [], totalMs: 0 });
    const one = timelineLayout([{ seq: 1, phase: "run_started", step: 0, t: t0 }], opts);
    expect(one.ticks[0].x).toBe(70);
  });
});

describe("timeline layout of the phases a paused run really writes", () => {
  const t0 = 1_700_000_000_000;
  // What the runner writes for a tool call that waits for an approval: the batch starts, the run pauses
  // (one `paused` per pending approval), and on resume the step is re-entered with the stored response
  // (pre_llm again, no model call) before the batch runs.
  const phases: [string, number, number][] = [
    ["run_started", 0, 0],
    ["step_started", 1, 1],
    ["pre_llm", 1, 2],
    ["post_llm", 1, 802],
    ["pre_tool_batch", 1, 803],
    ["paused", 1, 805],
    ["paused", 1, 806],
    ["resumed", 1, 300_806],
    ["step_started", 1, 300_807],
    ["pre_llm", 1, 300_808],
    ["pre_tool_batch", 1, 300_809],
    ["post_tool_batch", 1, 300_830],
    ["step_started", 2, 300_831],
    ["pre_llm", 2, 300_832],
    ["post_llm", 2, 301_632],
    ["run_terminal", 2, 301_640],
  ];
  const points = phases.map(([phase, step, t], seq) => ({ seq, phase, step, t: t0 + t }));

  it("the pause interrupts the tool batch, is cut, and a re-entered pre_llm is no model call", () => {
    const l = timelineLayout(points, { left: 70, right: 880 });
    expect(l.breaks).toEqual([expect.objectContaining({ ms: 300_000, paused: true })]);
    const kinds = l.spans.map((s) => [s.kind, s.step, s.ms, s.interrupted]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ["llm", 1, 800, false],
        ["llm", 2, 800, false],
        ["tools", 1, 2, true],
        ["tools", 1, 21, false],
        ["paused", 1, 300_001, false],
      ]),
    );
    // The re-entered pre_llm (no call) is 1 ms, ended by the batch that followed it.
    expect(l.spans.filter((s) => s.kind === "llm" && s.interrupted).map((s) => s.ms)).toEqual([1]);
    for (const s of l.spans.filter((x) => x.kind === "llm" && !x.interrupted)) expect(s.x2 - s.x1).toBeGreaterThan(300);
  });

  it("a crash inside a model call leaves a gap that is cut, not drawn as a 40-second call", () => {
    const crashed = [
      { seq: 0, phase: "step_started", step: 1, t: t0 },
      { seq: 1, phase: "pre_llm", step: 1, t: t0 + 1 },
      // The process died here; another instance took the run over after its lease.
      { seq: 2, phase: "step_started", step: 1, t: t0 + 40_001 },
      { seq: 3, phase: "pre_llm", step: 1, t: t0 + 40_002 },
      { seq: 4, phase: "post_llm", step: 1, t: t0 + 40_802 },
      { seq: 5, phase: "run_terminal", step: 1, t: t0 + 40_810 },
    ];
    const l = timelineLayout(crashed, { left: 70, right: 880 });
    expect(l.breaks).toEqual([expect.objectContaining({ ms: 40_000, paused: false })]);
    expect(l.spans.find((s) => s.kind === "llm" && !s.interrupted)?.ms).toBe(800);
  });
});

describe("timeline axis labels: round steps per segment of a broken axis, never the same label twice", () => {
  const t0 = 1_700_000_000_000;
  const at = (spec: [string, number][]): TimelinePoint[] => spec.map(([phase, t], seq) => ({ seq, phase, step: 1, t: t0 + t }));
  // The run of public/screenshots/timeline.png: 71 ms of work, a 9.4 s pause, 43 ms after it.
  const shortAfterPause = at([
    ["run_started", 0],
    ["pre_llm", 4],
    ["post_llm", 40],
    ["pre_tool_batch", 46],
    ["post_tool_batch", 56],
    ["paused", 71],
    ["resumed", 9498],
    ["pre_tool_batch", 9501],
    ["post_tool_batch", 9508],
    ["pre_llm", 9509],
    ["post_llm", 9511],
    ["run_terminal", 9541],
  ]);
  const twoSeconds = at([
    ["run_started", 0],
    ["pre_llm", 10],
    ["post_llm", 2000],
  ]);
  const threeMinutes = at([
    ["run_started", 0],
    ["pre_llm", 10],
    ["post_llm", 180_000],
  ]);
  // A run cancelled while paused: the segment after the cut pause has no length.
  const nothingAfterPause = at([
    ["run_started", 0],
    ["pre_llm", 2],
    ["post_llm", 42],
    ["paused", 70],
    ["run_terminal", 5070],
  ]);
  const single = at([["run_started", 0]]);
  // The picture's axis at a 1280 px and a 390 px page (the component's left 70, right width - 24 - card).
  const widths = [
    { left: 70, right: 1256 },
    { left: 70, right: 880 },
    { left: 70, right: 366 },
  ];

  /** What every labelled axis keeps: labels unique and readable, marks in order and apart, no NaN. */
  function expectReadable(l: ReturnType<typeof timelineLayout>, right: number) {
    const marks = [...l.axis, ...(l.axisEnd ? [l.axisEnd] : [])];
    const labels = marks.map((m) => m.label);
    expect(new Set(labels).size, labels.join(" | ")).toBe(labels.length);
    for (const m of marks) {
      expect(Number.isFinite(m.x)).toBe(true);
      expect(m.label).not.toMatch(/NaN|undefined|Infinity/);
      expect(m.label).toMatch(/^(\d+ h )?(\d+ min)?( ?\d+(\.\d{1,3})? s)?$|^\d+ ms$/);
    }
    for (let i = 1; i < marks.length; i++) {
      expect(marks[i].ms).toBeGreaterThan(marks[i - 1].ms);
      expect(marks[i].x).toBeGreaterThan(marks[i - 1].x);
      // Label extents (about 7 px a character at 12 px) never overlap.
      const extent = (m: (typeof marks)[number]) => {
        const w = m.label.length * 7;
        const l0 = m.anchor === "start" ? m.x : m.anchor === "end" ? m.x - w : m.x - w / 2;
        return [l0, l0 + w];
      };
      expect(extent(marks[i])[0]).toBeGreaterThan(extent(marks[i - 1])[1]);
    }
    for (const m of marks) expect(m.x).toBeLessThanOrEqual(right);
    // Within a segment the marks sit at multiples of one round step of its unit (1, 2 or 5 × 10^k).
    let from = 0;
    const segments = [...l.breaks.map((b) => b.from - t0), Number.POSITIVE_INFINITY].map((to, i) => {
      const seg = { from, to };
      from = l.breaks[i] ? l.breaks[i].to - t0 : 0;
      return seg;
    });
    for (const seg of segments) {
      const inside = l.axis.filter((m) => m.ms > 0 && m.ms >= seg.from && m.ms <= seg.to).map((m) => m.ms);
      for (let i = 1; i < inside.length; i++) {
        const step = inside[i] - inside[i - 1];
        const unit = step % 60_000 === 0 ? 60_000 : step % 1000 === 0 ? 1000 : 1;
        expect(String(step / unit / 10 ** Math.floor(Math.log10(step / unit)))).toMatch(/^[125]$/);
      }
    }
  }

  it("a 40 ms segment after a 9.5 s cut reads 9.50 s, 9.51 s, …: as many decimals as its 10 ms step needs", () => {
    for (const w of widths) {
      const l = timelineLayout(shortAfterPause, w);
      expectReadable(l, w.right);
      const after = l.axis.filter((m) => m.ms > 9000);
      for (const m of after) expect(m.label).toMatch(/^9\.5\d{1,2} s$/);
      expect(l.axis.filter((m) => m.ms < 1000).every((m) => /^\d+ ms$/.test(m.label))).toBe(true);
    }
    const wide = timelineLayout(shortAfterPause, widths[0]);
    expect(wide.axis.filter((m) => m.ms > 9000).map((m) => m.label)).toEqual(["9.51 s", "9.52 s", "9.53 s", "9.54 s"]);
    expect(wide.axis.slice(0, 3).map((m) => m.label)).toEqual(["0 ms", "10 ms", "20 ms"]);
    // On a phone only the start and one mark fit before the cut; the end says where the axis stops.
    const phone = timelineLayout(shortAfterPause, widths[2]);
    expect([...phone.axis.map((m) => m.label), phone.axisEnd?.label]).toEqual(["0 ms", "50 ms", "9.541 s"]);
  });

  it("the end of the axis says its real length, one decimal finer than a 2 s step, not a round mark", () => {
    // The latency spec's run on a phone: 1.6 s of work, an 8.7 s pause, 0.8 s after it; the step is 2 s.
    const deploy = at([
      ["run_started", 0],
      ["pre_llm", 3],
      ["post_llm", 808],
      ["paused", 1632],
      ["resumed", 10_298],
      ["pre_llm", 10_310],
      ["post_llm", 11_118],
      ["run_terminal", 11_125],
    ]);
    const l = timelineLayout(deploy, { left: 70, right: 304 });
    expectReadable(l, 304);
    expect([...l.axis.map((m) => m.label), l.axisEnd?.label]).toEqual(["0 s", "11.1 s"]);
  });

  it("a 2 s segment is marked in seconds with the decimals its step needs", () => {
    for (const w of widths) expectReadable(timelineLayout(twoSeconds, w), w.right);
    expect(timelineLayout(twoSeconds, widths[0]).axis.map((m) => m.label)).toEqual([
      "0 s",
      "0.2 s",
      "0.4 s",
      "0.6 s",
      "0.8 s",
      "1.0 s",
      "1.2 s",
      "1.4 s",
      "1.6 s",
      "1.8 s",
      "2.0 s",
    ]);
    expect(timelineLayout(twoSeconds, widths[2]).axis.map((m) => m.label)).toEqual(["0 s", "1 s", "2 s"]);
  });

  it("a 3 min segment is marked in whole minutes", () => {
    for (const w of widths) {
      const l = timelineLayout(threeMinutes, w);
      expectReadable(l, w.right);
      expect(l.axis.map((m) => m.label)).toEqual(["0 min", "1 min", "2 min", "3 min"]);
    }
  });

  it("a segment of no length gets one label or none, a single checkpoint just its start, never NaN", () => {
    for (const w of widths) {
      const l = timelineLayout(nothingAfterPause, w);
      expectReadable(l, w.right);
      expect(l.breaks).toHaveLength(1);
      expect(l.axis.filter((m) => m.ms >= 5070).length).toBeLessThanOrEqual(1);
      const one = timelineLayout(single, w);
      expectReadable(one, w.right);
      expect(one.axis).toEqual([{ x: 70, ms: 0, label: "0 ms", anchor: "start" }]);
      expect(one.axisEnd).toBeNull();
    }
  });

  it("rounds steps to 1, 2, 5 × 10^k of a unit that fits the segment, and writes them exactly", () => {
    expect([8.4, 0.13, 1, 3, 70, 0, Number.NaN].map((x) => niceStep(x))).toEqual([10, 0.2, 1, 5, 100, 1, 1]);
    expect(niceStep(0.3, 1)).toBe(1);
    expect([0, 40, 999, 1000, 119_999, 120_000].map(axisUnit)).toEqual(["ms", "ms", "ms", "s", "s", "min"]);
    expect(axisLabel(9510, 10, 9541)).toBe("9.51 s");
    expect(axisLabel(9500, 10, 9541)).toBe("9.50 s");
    expect(axisLabel(9502, 2, 9541)).toBe("9.502 s");
    expect(axisLabel(40, 10, 57)).toBe("40 ms");
    expect(axisLabel(1500, 500, 2000)).toBe("1.5 s");
    expect(axisLabel(30_000, 10_000, 90_000)).toBe("30 s");
    expect(axisLabel(90_000, 10_000, 90_000)).toBe("1 min 30 s");
    expect(axisLabel(300_080, 20, 300_140)).toBe("5 min 0.08 s");
    expect(axisLabel(120_000, 60_000, 180_000)).toBe("2 min");
    expect(axisLabel(5_400_000, 600_000, 6_000_000)).toBe("1 h 30 min");
  });
});

describe("a page's points as the page sends them", () => {
  it("come back as they were: seqs with a gap, steps going back, equal and earlier times, phases repeated", () => {
    const points: TimelinePoint[] = [
      ...step(0, 1, 1_796_568_893_186),
      { seq: 9, phase: "paused", step: 1, t: 1_796_568_893_300 },
      { seq: 10, phase: "paused", step: 1, t: 1_796_568_893_300 },
      { seq: 11, phase: "resumed", step: 0, t: 1_796_568_893_299 },
      { seq: 12, phase: "a phase of an external runtime's own", step: 7, t: 1_796_568_999_999 },
    ];
    const packed = packPoints(points);
    expect(unpackPoints(packed)).toEqual(points);
    expect(packed.phases).toEqual([...new Set(points.map((p) => p.phase))]);
    // Smaller than the points themselves, which is what it is for.
    expect(JSON.stringify(packed).length).toBeLessThan(JSON.stringify(points).length / 2);
    expect(unpackPoints(packPoints([]))).toEqual([]);
  });
});
