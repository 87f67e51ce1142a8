// Trace context across processes: in a queue job (from the request that reserved the run to the worker
// that executes it) and on the Run row (from one execution segment, and the decisions after it, to the
// segment that resumes the run). W3C traceparent strings, nothing else.
import { type Context, context, type Link, propagation, ROOT_CONTEXT, type SpanContext, trace } from "@opentelemetry/api";
import { AFK } from "./conventions.ts";
import { tracingOn } from "./sdk.ts";

/** What a queue job carries: the reserving context and when it was queued. */
export type JobTrace = { traceparent: string; tracestate?: string; sentAtMs: number };

/** The Run row's traceContext column: the last segment and the decisions made since it paused. */
export type RunTraceLinks = { segment?: string; decisions?: string[] };

/** The active context as a job's trace (undefined when tracing is off or nothing is active). */
export function jobTrace(ctx: Context = context.active()): JobTrace | undefined {
  if (!tracingOn()) return undefined;
  const c: Record<string, string> = {};
  propagation.inject(ctx, c);
  return c.traceparent ? { traceparent: c.traceparent, tracestate: c.tracestate, sentAtMs: Date.now() } : undefined;
}

/** The context a job's trace names (the root context without one). */
export const contextOfJob = (t: JobTrace | undefined): Context =>
  t
    ? propagation.extract(ROOT_CONTEXT, { traceparent: t.traceparent, ...(t.tracestate ? { tracestate: t.tracestate } : {}) })
    : ROOT_CONTEXT;

export function spanContextOf(traceparent: string): SpanContext | null {
  const sc = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
  return sc && trace.isSpanContextValid(sc) ? sc : null;
}

export function traceparentOf(sc: SpanContext): string {
  const c: Record<string, string> = {};
  propagation.inject(trace.setSpanContext(ROOT_CONTEXT, sc), c);
  return c.traceparent;
}

/** The active span's traceparent (undefined when tracing is off or nothing is active). */
export function activeTraceparent(): string | undefined {
  const sc = trace.getSpanContext(context.active());
  return tracingOn() && sc && trace.isSpanContextValid(sc) ? traceparentOf(sc) : undefined;
}

export function parseRunTraceLinks(text: string | null | undefined): RunTraceLinks {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as RunTraceLinks;
    return {
      segment: typeof v.segment === "string" ? v.segment : undefined,
      decisions: Array.isArray(v.decisions) ? v.decisions.filter((d) => typeof d === "string") : undefined,
    };
  } catch {
    return {};
  }
}

/** A resumed segment's links: the segment before it and each request that decided meanwhile. */
export function linksOf(l: RunTraceLinks, parent: SpanContext | undefined): Link[] {
  const out: Link[] = [];
  const seen = new Set<string>(parent ? [parent.spanId] : []);
  const add = (tp: string | undefined, kind: string) => {
    const sc = tp ? spanContextOf(tp) : null;
    if (!sc || seen.has(sc.spanId)) return;
    seen.add(sc.spanId);
    out.push({ context: sc, attributes: { [AFK.linkKind]: kind } });
  };
  add(l.segment, "previous_segment");
  for (const d of l.decisions ?? []) add(d, "decision");
  return out;
}

/** The Run row's traceContext with one more deciding request (at most 16 kept: links, not an audit). */
export function withDecision(current: string | null, traceparent: string): string {
  const l = parseRunTraceLinks(current);
  return JSON.stringify({ ...l, decisions: [...(l.decisions ?? []), traceparent].slice(-16) });
}
