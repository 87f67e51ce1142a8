// A reviewer's decision, on the trace of the request that made it: a span event with how long the
// approval waited, and the request's context kept for the resumed segment's link (propagation.ts).
import { context, trace } from "@opentelemetry/api";
import type { ApprovalRecord } from "../runner/index.ts";
import { AFK, EVENT, GEN_AI } from "./conventions.ts";
import { activeTraceparent } from "./propagation.ts";
import { tracingOn } from "./sdk.ts";

/** The deciding request's traceparent (undefined when tracing is off or no span is active). */
export function traceDecision(a: ApprovalRecord): string | undefined {
  if (!tracingOn()) return undefined;
  const span = trace.getSpan(context.active());
  span?.addEvent(EVENT.approvalDecided, {
    [AFK.approvalId]: a.id,
    [AFK.approvalKind]: a.kind,
    [GEN_AI.toolName]: a.tool_name,
    [AFK.decision]: a.status,
    [AFK.waitS]: ((a.decided_at_ms ?? Date.now()) - a.requested_at_ms) / 1000,
  });
  return activeTraceparent();
}
