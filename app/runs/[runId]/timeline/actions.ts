"use server";
import { currentActor } from "@/lib/auth/server";
import { runAction } from "@/lib/http";
import { appContext } from "@/lib/context";
import { forkRun } from "@/lib/services/operate";
import { idArg } from "@/lib/validation";

export async function forkAction(runId: string, seq: number) {
  return runAction(async () => forkRun(appContext(), await currentActor(), { runId: idArg("runId", runId), body: { seq } }));
}
