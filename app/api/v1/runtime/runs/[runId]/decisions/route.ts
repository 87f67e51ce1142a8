import { appContext } from "@/lib/context";
import { runtimeRoute } from "@/lib/http";
import { listDecisions } from "@/lib/services/runtime-protocol";

export const dynamic = "force-dynamic";

export const GET = runtimeRoute<{ runId: string }>(async ({ runtime, recheck, params, query, req }) =>
  listDecisions(appContext(), runtime, { runId: params.runId, query, signal: req.signal, recheck }),
);
