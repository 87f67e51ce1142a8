import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { getRunView } from "@/lib/services/run-view";

export const GET = apiRoute<{ runId: string }>(({ actor, params }) => getRunView(appContext(), actor, { runId: params.runId }));
