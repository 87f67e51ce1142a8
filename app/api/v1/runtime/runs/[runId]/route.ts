import { appContext } from "@/lib/context";
import { runtimeRoute } from "@/lib/http";
import { getRuntimeRun } from "@/lib/services/runtime-protocol";

export const GET = runtimeRoute<{ runId: string }>(async ({ runtime, params }) =>
  getRuntimeRun(appContext(), runtime, { runId: params.runId }),
);
