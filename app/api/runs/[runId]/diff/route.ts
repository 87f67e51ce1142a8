import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { diffCheckpoints } from "@/lib/services/timeline";

export const GET = apiRoute<{ runId: string }>(({ actor, params, query }) =>
  diffCheckpoints(appContext(), actor, { runId: params.runId, query }),
);
