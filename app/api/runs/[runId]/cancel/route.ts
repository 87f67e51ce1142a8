import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { cancelRun } from "@/lib/runs/service";

export const POST = apiRoute<{ runId: string }>(({ actor, params }) => cancelRun(appContext(), actor, params.runId), { status: 202 });
