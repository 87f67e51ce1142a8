// OpenTelemetry for this process: started by instrumentation.ts (the web server) and scripts/worker.ts,
// and only when an OTLP endpoint is configured. Without one the SDK is never loaded: the code paths ask
// tracingOn() and add nothing, and @opentelemetry/api (always present) answers with no-op spans.
import { hostname } from "node:os";
import { DiagLogLevel, diag, type Tracer, trace } from "@opentelemetry/api";
import type { Env } from "../env.ts";
import { ExportFailures, OpenSpans, queueDrops, reporting } from "./export-health.ts";
import { withNextRequestSpansOnly } from "./next-spans.ts";

type Provider = { forceFlush(): Promise<void>; shutdown(): Promise<void> };
type State = { provider: Provider | null; captureContent: boolean; open?: OpenSpans };

// On globalThis, like the database client: Next's server bundles hold more than one copy of this module.
const g = globalThis as unknown as { afkTracing?: State };

export const TRACER_NAME = "afk-console";

type TraceEnv = Pick<
  Env,
  | "OTEL_EXPORTER_OTLP_ENDPOINT"
  | "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
  | "OTEL_SERVICE_NAME"
  | "OTEL_SDK_DISABLED"
  | "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
>;

/** Where spans go, or null when tracing is off (no endpoint, or OTEL_SDK_DISABLED=true). */
export function tracesUrl(e: TraceEnv): string | null {
  if (e.OTEL_SDK_DISABLED === "true") return null;
  if (e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (e.OTEL_EXPORTER_OTLP_ENDPOINT) return `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
  return null;
}

/** True once this process exports spans: the instrumented paths do nothing otherwise. */
export const tracingOn = (): boolean => g.afkTracing?.provider != null;

/** Message content (prompts, answers, tool arguments and results) goes on spans only when turned on. */
export const captureContent = (): boolean => g.afkTracing?.captureContent ?? false;

// Asked for at each span, not kept: Next.js wraps the tracers the provider hands out after registration
// (its instrumentation-node-extensions), and a tracer kept from before would bypass that.
export const tracer = (): Tracer => trace.getTracer(TRACER_NAME);

/**
 * Starts the SDK when e names an OTLP endpoint: spans batched (OTEL_BSP_* apply) and sent as OTLP/HTTP
 * JSON; the resource from OTEL_SERVICE_NAME (else `service`) and OTEL_RESOURCE_ATTRIBUTES; W3C trace
 * context as the propagator. Resolves to whether tracing is on. Once per process.
 */
export async function startTracing(service: string, e: TraceEnv): Promise<boolean> {
  if (g.afkTracing) return tracingOn();
  const state: State = { provider: null, captureContent: e.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === "true" };
  g.afkTracing = state;
  const url = tracesUrl(e);
  if (!url) return false;
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, res] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  // Later merges win: the defaults, then ours, then what the environment says.
  const resource = res
    .defaultResource()
    .merge(res.resourceFromAttributes({ "service.name": e.OTEL_SERVICE_NAME ?? service, "service.instance.id": instanceName() }))
    .merge(res.detectResources({ detectors: [res.envDetector] }));
  // Export failures are logged (export-health.ts); the endpoint's origin only, as a URL may carry a secret.
  const failures = new ExportFailures(new URL(url).origin);
  diag.setLogger(queueDrops(failures), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  const open = new OpenSpans();
  const exporter = reporting(new OTLPTraceExporter({ url }), failures);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [open, new BatchSpanProcessor(exporter)] });
  // The context manager and the W3C propagator globally; as the global provider, this one with Next.js's
  // spans cut to its request spans (next-spans.ts).
  provider.register();
  trace.disable();
  trace.setGlobalTracerProvider(withNextRequestSpansOnly(provider));
  state.provider = provider;
  state.open = open;
  return true;
}

/**
 * Ends the spans still open (interrupted: a segment handed back, its model call in progress, a request
 * in flight), sends what is buffered and stops (the SIGTERM path); waits at most timeoutMs.
 */
export async function stopTracing(timeoutMs = 5000): Promise<void> {
  const p = g.afkTracing?.provider;
  if (!p) return;
  g.afkTracing?.open?.interrupt();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    p.shutdown().catch(() => undefined),
    new Promise<void>((r) => {
      timer = setTimeout(r, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}

/** Sends what is buffered now (tests, benchmarks). */
export async function flushTracing(): Promise<void> {
  await g.afkTracing?.provider?.forceFlush();
}

function instanceName() {
  return `${hostname()}:${process.pid}`;
}
