import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/http";
import { timelinePage } from "@/lib/runs/service";

export const GET = apiRoute<{ runId: string }>(({ actor, params, query }) => timelinePage(db(), actor, params.runId, query));
