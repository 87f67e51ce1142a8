import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/http";
import { executor } from "@/lib/runs/instance";
import { getRunView } from "@/lib/runs/service";

export const GET = apiRoute<{ runId: string }>(({ actor, params }) => getRunView(db(), executor(), actor, params.runId));
