"use server";
// The run page's operator actions, as server actions calling the same services as the REST routes
// (POST /api/runs/{id}/resume|cancel|retry). A server action is a public endpoint: each call resolves the
// session again (a disabled user or a changed role stops at once) and the service checks the role.
import { currentActor } from "@/lib/auth/server";
import { runAction } from "@/lib/http";
import { appContext } from "@/lib/context";
import { cancelRun, resumeRun, retryRun } from "@/lib/services/operate";
import { idArg } from "@/lib/validation";

export async function resumeRunAction(runId: string) {
  return runAction(async () => resumeRun(appContext(), await currentActor(), { runId: idArg("runId", runId) }));
}

export async function cancelRunAction(runId: string) {
  return runAction(async () => cancelRun(appContext(), await currentActor(), { runId: idArg("runId", runId) }));
}

export async function retryRunAction(runId: string) {
  return runAction(async () => retryRun(appContext(), await currentActor(), { runId: idArg("runId", runId) }));
}
