import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { resumeRun } from "@/lib/runs/service";

export const POST = apiRoute<{ runId: string }>(({ actor, params }) => resumeRun(appContext(), actor, params.runId), { status: 202 });
