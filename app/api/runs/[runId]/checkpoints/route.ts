import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { timelinePage } from "@/lib/services/timeline";

export const GET = apiRoute<{ runId: string }>(({ actor, params, query }) =>
  timelinePage(appContext(), actor, { runId: params.runId, query }),
);
