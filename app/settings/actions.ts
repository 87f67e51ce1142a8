"use server";
// Notification settings as a server action: a public endpoint, so the session is resolved again and the
// service validates the input and audits the change.
import { currentActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { runAction } from "@/lib/http";
import { saveMyNotifySettings } from "@/lib/services/notifications";

export async function saveNotifySettingsAction(input: unknown) {
  return runAction(async () => saveMyNotifySettings(appContext(), await currentActor(), { body: input }));
}
