import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { resumeRun } from "@/lib/services/operate";

export const POST = apiRoute<{ runId: string }>(({ actor, params }) => resumeRun(appContext(), actor, { runId: params.runId }), {
  status: 202,
});
