"use server";
import { currentActor } from "@/lib/auth/server";
import { runAction } from "@/lib/http";
import { appContext } from "@/lib/runs/instance";
import { forkRun } from "@/lib/runs/service";

export async function forkAction(runId: string, seq: number) {
  return runAction(async () => forkRun(appContext(), await currentActor(), runId, { seq }));
}
