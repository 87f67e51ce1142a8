import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { cancelRun } from "@/lib/services/operate";

export const POST = apiRoute<{ runId: string }>(({ actor, params }) => cancelRun(appContext(), actor, { runId: params.runId }), {
  status: 202,
});
