// The checkpoints of one timeline page on a time axis: a tick per checkpoint, and spans for model calls
// (pre_llm → post_llm), tool batches, subagent batches and pauses (paused → resumed).
type Cp = { seq: number; phase: string; step: number; t: number };

const SPANS = [
  { start: "pre_llm", end: "post_llm", label: "LLM", color: "#6366f1", row: 0 },
  { start: "pre_tool_batch", end: "post_tool_batch", label: "tools", color: "#10b981", row: 1 },
  { start: "pre_subagent_batch", end: "post_subagent_batch", label: "subagents", color: "#0ea5e9", row: 2 },
  { start: "paused", end: "resumed", label: "paused", color: "#f59e0b", row: 3 },
];

export function TimelinePicture({ checkpoints }: { checkpoints: Cp[] }) {
  const t0 = checkpoints[0].t;
  const t1 = Math.max(checkpoints[checkpoints.length - 1].t, t0 + 1);
  const W = 900;
  const x = (t: number) => 60 + ((t - t0) / (t1 - t0)) * (W - 80);
  const spans: { x1: number; x2: number; color: string; row: number; label: string }[] = [];
  for (const s of SPANS) {
    let open: Cp | null = null;
    for (const c of checkpoints) {
      if (c.phase === s.start && !open) open = c;
      else if (c.phase === s.end && open) {
        spans.push({
          x1: x(open.t),
          x2: Math.max(x(c.t), x(open.t) + 2),
          color: s.color,
          row: s.row,
          label: `${s.label} step ${open.step}: ${c.t - open.t} ms`,
        });
        open = null;
      }
    }
    if (open) spans.push({ x1: x(open.t), x2: W - 20, color: s.color, row: s.row, label: `${s.label} step ${open.step}: open` });
  }
  return (
    <figure className="card overflow-x-auto">
      <svg
        viewBox={`0 0 ${W} 130`}
        className="w-full min-w-[600px]"
        role="img"
        aria-label={`Timeline picture of ${checkpoints.length} checkpoints over ${t1 - t0} ms`}
      >
        {SPANS.map((s) => (
          <text key={s.label} x={4} y={18 + s.row * 22} fontSize="10" fill="currentColor">
            {s.label}
          </text>
        ))}
        {spans.map((s, i) => (
          <rect key={i} x={s.x1} y={8 + s.row * 22} width={s.x2 - s.x1} height={14} fill={s.color} rx={2}>
            <title>{s.label}</title>
          </rect>
        ))}
        {checkpoints.map((c) => (
          <line key={c.seq} x1={x(c.t)} x2={x(c.t)} y1={98} y2={110} stroke="currentColor" strokeWidth={1}>
            <title>{`#${c.seq} ${c.phase} (step ${c.step})`}</title>
          </line>
        ))}
        <text x={60} y={124} fontSize="10" fill="currentColor">
          0 ms
        </text>
        <text x={W - 20} y={124} fontSize="10" textAnchor="end" fill="currentColor">
          {t1 - t0} ms
        </text>
      </svg>
      <figcaption className="text-xs text-slate-500">
        Spans: LLM calls, tool batches, subagent batches, pauses. Ticks: checkpoints.
      </figcaption>
    </figure>
  );
}
