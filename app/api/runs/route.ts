import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/http";
import { executor } from "@/lib/runs/instance";
import { listRuns, startRun } from "@/lib/runs/service";

export const GET = apiRoute(({ actor, query }) => listRuns(db(), actor, query));
export const POST = apiRoute(async ({ actor, body }) => startRun(db(), executor(), actor, await body()), { status: 201 });
