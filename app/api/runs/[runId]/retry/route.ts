import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/http";
import { executor } from "@/lib/runs/instance";
import { retryRun } from "@/lib/runs/service";

export const POST = apiRoute<{ runId: string }>(({ actor, params }) => retryRun(db(), executor(), actor, params.runId), { status: 202 });
