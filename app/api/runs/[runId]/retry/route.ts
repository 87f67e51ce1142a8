import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { retryRun } from "@/lib/runs/service";

export const POST = apiRoute<{ runId: string }>(({ actor, params }) => retryRun(appContext(), actor, params.runId), { status: 202 });
