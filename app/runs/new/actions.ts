"use server";
import { currentActor } from "@/lib/auth/server";
import { runAction } from "@/lib/http";
import { appContext } from "@/lib/context";
import { startRun } from "@/lib/services/start";

// idempotencyKey: one per form (a double submit or a retry after a lost answer starts one run).
export async function startRunAction(input: unknown, idempotencyKey?: string) {
  return runAction(async () => startRun(appContext(), await currentActor(), { body: input, idempotencyKey: idempotencyKey ?? null }));
}
