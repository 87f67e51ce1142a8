// Next.js's own spans, cut to its request span. Next.js asks the global provider for a "next.js" tracer and
// starts about five spans a request (the request, the proxy pass, the route handler or render, module
// loading, the response); with the console's database spans that was half of a traced request's spans and
// of tracing's CPU per request. Here only its request spans (BaseServer.handleRequest: kind SERVER, named
// by method and route, the incoming traceparent as parent) are recorded; each other span of Next's stands for
// its parent and records nothing, so what runs inside it (the console's database spans, the run a request
// starts) nests under the request span. Inside the inner spans Next starts as active spans (the route
// handler's, and those around a page's or a server action's work) the request span stays the active one:
// what a route handler or server action records on the active span (an event such as afk.approval.decided,
// attributes, an exception) lands on it, while what Next.js does to its inner spans (their attributes,
// status, end) goes nowhere. Every other tracer is the provider's own.
import {
  type Context,
  context,
  INVALID_SPAN_CONTEXT,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
  type TracerOptions,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";

const NEXT_TRACER = "next.js";
const REQUEST_SPAN = "BaseServer.handleRequest";

/** provider, with Next.js's tracer recording only its request spans. */
export function withNextRequestSpansOnly(provider: TracerProvider): TracerProvider {
  // One tracer per name, version and schema URL (the SDK's own key), kept: Next.js asks for its tracer
  // several times a request (each span, each check whether tracing is on), through the API's proxy, which
  // it wraps once per tracer.
  const tracers = new Map<string, Tracer>();
  return {
    getTracer(name: string, version?: string, options?: TracerOptions): Tracer {
      const key = `${name}@${version ?? ""}:${options?.schemaUrl ?? ""}`;
      let t = tracers.get(key);
      if (!t) {
        t = provider.getTracer(name, version, options);
        if (name === NEXT_TRACER) t = requestSpansOnly(t);
        tracers.set(key, t);
      }
      return t;
    },
  };
}

function requestSpansOnly(tracer: Tracer): Tracer {
  const isRequest = (options: SpanOptions | undefined) => options?.attributes?.["next.span_type"] === REQUEST_SPAN;
  return {
    startSpan: (name: string, options?: SpanOptions, ctx: Context = context.active()) =>
      isRequest(options) ? tracer.startSpan(name, options, ctx) : new Inner(recorded(ctx)),
    startActiveSpan<F extends (span: Span) => unknown>(name: string, a: SpanOptions | F, b?: Context | F, c?: F): ReturnType<F> {
      const options = typeof a === "function" ? undefined : a;
      const ctx = typeof b === "object" ? b : context.active();
      const fn = (c ?? (typeof b === "function" ? b : a)) as F;
      if (isRequest(options)) {
        const span = tracer.startSpan(name, options, ctx);
        return context.with(trace.setSpan(ctx, span), fn as (s: Span) => ReturnType<F>, undefined, span);
      }
      // Next.js gets the stand-in; the code it runs sees the recorded span as the active one.
      const parent = recorded(ctx);
      const inner = new Inner(parent);
      const active = parent && trace.getSpan(ctx) !== parent ? trace.setSpan(ctx, parent) : ctx;
      return context.with(active, fn as (s: Span) => ReturnType<F>, undefined, inner);
    },
  } as Tracer;
}

// The span ctx names, or the one a stand-in stands for: the request span (or a span of the console's).
// Next.js makes one stand-in active itself (a page's render span, through its withSpan).
function recorded(ctx: Context): Span | undefined {
  const s = trace.getSpan(ctx);
  return s instanceof Inner ? s.parent : s;
}

// An inner span of Next's: its parent's identity (and whether that records, which decides whether the
// console's statements under it are spans), while what Next.js does to it (attributes, status, end) goes
// nowhere: the parent is not Next's to end from here.
class Inner implements Span {
  constructor(readonly parent: Span | undefined) {}
  spanContext(): SpanContext {
    return this.parent?.spanContext() ?? INVALID_SPAN_CONTEXT;
  }
  isRecording(): boolean {
    return this.parent?.isRecording() ?? false;
  }
  setAttribute(): this {
    return this;
  }
  setAttributes(): this {
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(): this {
    return this;
  }
  updateName(): this {
    return this;
  }
  end(): void {}
  recordException(): void {}
}
