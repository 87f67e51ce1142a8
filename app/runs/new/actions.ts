"use server";
import { db } from "@/lib/db/client";
import { currentActor } from "@/lib/auth/server";
import { runAction } from "@/lib/http";
import { executor } from "@/lib/runs/instance";
import { startRun } from "@/lib/runs/service";

export async function startRunAction(input: unknown) {
  return runAction(async () => startRun(db(), executor(), await currentActor(), input));
}
