import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { diffCheckpoints } from "@/lib/runs/service";

export const GET = apiRoute<{ runId: string }>(({ actor, params, query }) => diffCheckpoints(appContext(), actor, params.runId, query));
