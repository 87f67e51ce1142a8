import { appContext } from "@/lib/context";
import { runtimeRoute } from "@/lib/http";
import { claimDecision } from "@/lib/services/runtime-claim";

export const POST = runtimeRoute<{ runId: string; interruptId: string }>(async ({ runtime, params, body }) =>
  claimDecision(appContext(), runtime, { runId: params.runId, interruptId: params.interruptId, body: await body() }),
);
