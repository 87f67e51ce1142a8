import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { getRunView } from "@/lib/runs/service";

export const GET = apiRoute<{ runId: string }>(({ actor, params }) => getRunView(appContext(), actor, params.runId));
