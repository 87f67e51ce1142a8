import { appContext } from "@/lib/context";
import { runtimeRoute } from "@/lib/http";
import { claimDecision } from "@/lib/services/runtime-protocol";

export const POST = runtimeRoute<{ runId: string; interruptId: string }>(async ({ runtime, params }) =>
  claimDecision(appContext(), runtime, { runId: params.runId, interruptId: params.interruptId }),
);
