import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { retryRun } from "@/lib/services/operate";

export const POST = apiRoute<{ runId: string }>(({ actor, params }) => retryRun(appContext(), actor, { runId: params.runId }), {
  status: 202,
});
