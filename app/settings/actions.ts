"use server";
// Notification settings as a server action: a public endpoint, so the session is resolved again and the
// service validates the input and audits the change.
import { currentActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { runAction } from "@/lib/http";
import { clearMyDelegation, setMyDelegation } from "@/lib/services/delegation";
import { saveMyNotifySettings } from "@/lib/services/notifications";

export async function saveNotifySettingsAction(input: unknown) {
  return runAction(async () => saveMyNotifySettings(appContext(), await currentActor(), { body: input }));
}

// A deputy while away (lib/services/delegation.ts), set and cleared on the same page.
export async function setDelegationAction(input: unknown) {
  return runAction(async () => setMyDelegation(appContext(), await currentActor(), { body: input }));
}

export async function clearDelegationAction() {
  return runAction(async () => clearMyDelegation(appContext(), await currentActor()));
}
