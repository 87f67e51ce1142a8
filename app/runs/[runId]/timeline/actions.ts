"use server";
import { currentActor } from "@/lib/auth/server";
import { runAction } from "@/lib/http";
import { appContext } from "@/lib/context";
import { forkRun } from "@/lib/services/operate";
import { forkPreview } from "@/lib/services/fork-preview";
import { idArg } from "@/lib/validation";

export async function forkAction(runId: string, seq: number) {
  return runAction(async () => forkRun(appContext(), await currentActor(), { runId: idArg("runId", runId), body: { seq } }));
}

export async function forkPreviewAction(runId: string, seq: number) {
  return runAction(async () =>
    forkPreview(appContext(), await currentActor(), { runId: idArg("runId", runId), query: { seq: String(seq) } }),
  );
}
