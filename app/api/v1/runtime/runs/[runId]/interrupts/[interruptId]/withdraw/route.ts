import { appContext } from "@/lib/context";
import { runtimeRoute } from "@/lib/http";
import { withdrawInterrupt } from "@/lib/services/runtime-claim";

export const POST = runtimeRoute<{ runId: string; interruptId: string }>(async ({ runtime, params, body }) =>
  withdrawInterrupt(appContext(), runtime, { runId: params.runId, interruptId: params.interruptId, body: await body() }),
);
