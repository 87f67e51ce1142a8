import { appContext } from "@/lib/context";
import { runtimeRoute } from "@/lib/http";
import { runtimeDecisionStream } from "@/lib/services/runtime-events";

export const dynamic = "force-dynamic";

export const GET = runtimeRoute<{ runId: string }>(async ({ runtime, recheck, params, query, req }) =>
  runtimeDecisionStream(appContext(), runtime, {
    runId: params.runId,
    query,
    lastEventId: req.headers.get("last-event-id"),
    signal: req.signal,
    recheck,
  }),
);
