import { appContext } from "@/lib/context";
import { runtimeRoute } from "@/lib/http";
import { reportEvents } from "@/lib/services/runtime-progress";

export const POST = runtimeRoute<{ runId: string }>(async ({ runtime, params, body }) =>
  reportEvents(appContext(), runtime, { runId: params.runId, body: await body() }),
);
