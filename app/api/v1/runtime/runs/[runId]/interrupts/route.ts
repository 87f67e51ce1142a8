import { appContext } from "@/lib/context";
import { runtimeRoute } from "@/lib/http";
import { parkInterrupts } from "@/lib/services/runtime-protocol";

export const POST = runtimeRoute<{ runId: string }>(async ({ runtime, params, body }) =>
  parkInterrupts(appContext(), runtime, { runId: params.runId, body: await body() }),
);
