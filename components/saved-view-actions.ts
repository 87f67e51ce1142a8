"use server";
import { currentActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { runAction } from "@/lib/http";
import { removeView, saveView } from "@/lib/services/saved-views";

export async function saveViewAction(body: unknown) {
  return runAction(async () => saveView(appContext(), await currentActor(), { body }));
}

export async function deleteViewAction(viewId: string) {
  return runAction(async () => removeView(appContext(), await currentActor(), { viewId: String(viewId).slice(0, 100) }));
}
