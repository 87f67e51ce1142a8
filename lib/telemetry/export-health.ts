// What happens to spans at the edges of the SDK's pipeline, which it handles silently: a span still open
// when the process stops (a segment handed back at SIGTERM, its model call in progress) is ended as
// interrupted and sent with the rest; spans the collector did not take (unreachable, refusing) are dropped
// by the SDK, and here each burst of that leaves a log line with how many.
import { type DiagLogger, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { log } from "../log.ts";
import { AFK, ERROR_TYPE, GEN_AI, INTERRUPTED, OPERATION } from "./conventions.ts";

/** The spans started and not yet ended (a Set add and delete a span), to end them when the process stops. */
export class OpenSpans implements SpanProcessor {
  private readonly open = new Set<Span | ReadableSpan>();
  onStart(span: Span) {
    this.open.add(span);
  }
  onEnd(span: ReadableSpan) {
    this.open.delete(span);
  }
  /** Ends each open span with an error status: what it did was cut short. Returns how many. */
  interrupt(): number {
    const spans = [...this.open] as Span[];
    for (const s of spans) {
      s.setAttribute(ERROR_TYPE, INTERRUPTED);
      if (s.attributes[GEN_AI.operationName] === OPERATION.invokeAgent) s.setAttribute(AFK.outcome, INTERRUPTED);
      s.setStatus({ code: SpanStatusCode.ERROR, message: "interrupted: the process stopped before this ended" });
      s.end();
    }
    return spans.length;
  }
  forceFlush() {
    return Promise.resolve();
  }
  shutdown() {
    return Promise.resolve();
  }
}

/**
 * Export failures as log lines: the first failure of a burst at once (warn, the spans dropped and the
 * error), then at most one line every everyMs while it lasts (the spans dropped since the last line), and
 * one when an export succeeds again (info, the burst's total).
 */
export class ExportFailures {
  private sinceLine = 0;
  private burst = 0;
  private lastLineMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly endpoint: string,
    private readonly everyMs = 60_000,
    private readonly now = () => Date.now(),
  ) {}

  dropped(n: number, reason: string) {
    this.sinceLine += n;
    this.burst += n;
    if (this.now() - this.lastLineMs < this.everyMs) return;
    log.warn("trace export failed; spans dropped", { dropped: this.sinceLine, endpoint: this.endpoint, error: reason.slice(0, 300) });
    this.sinceLine = 0;
    this.lastLineMs = this.now();
  }

  exported() {
    if (!this.burst) return;
    log.info("trace export recovered", { dropped: this.burst, endpoint: this.endpoint });
    this.burst = 0;
    this.sinceLine = 0;
    this.lastLineMs = Number.NEGATIVE_INFINITY;
  }
}

/** exporter, each batch's outcome told to failures (the SDK's ExportResultCode: 0 is SUCCESS). */
export function reporting(exporter: SpanExporter, failures: ExportFailures): SpanExporter {
  return {
    export(spans, done) {
      exporter.export(spans, (r) => {
        if (r.code === 0) failures.exported();
        else failures.dropped(spans.length, r.error ? String(r.error.message || r.error) : "export failed");
        done(r);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

// The batch processor drops spans when its queue is full (a collector slower than the spans come) and says
// so only through the API's diagnostic logger, with this message: that one is counted, the rest ignored.
const QUEUE_FULL = /^Dropped (\d+) spans because maxQueueSize reached/;

/** The API's diagnostic logger, passing the batch processor's dropped-span count on to failures. */
export function queueDrops(failures: ExportFailures): DiagLogger {
  const ignore = () => undefined;
  return {
    error: ignore,
    info: ignore,
    debug: ignore,
    verbose: ignore,
    warn: (message: string) => {
      const m = QUEUE_FULL.exec(message);
      if (m) failures.dropped(Number(m[1]), "the batch queue was full (OTEL_BSP_MAX_QUEUE_SIZE)");
    },
  };
}
