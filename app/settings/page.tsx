import type { Metadata } from "next";
import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { allows } from "@/lib/services/access";
import { myDelegation } from "@/lib/services/delegation";
import { myNotifySettings } from "@/lib/services/notifications";
import { DelegationClient } from "./delegation-client";
import { SettingsClient } from "./settings-client";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  const actor = await pageActor();
  const settings = await myNotifySettings(appContext(), actor);
  // Only someone who decides requests has requests to hand to a deputy.
  const decides = allows(actor, "approvals:decide");
  const delegation = decides ? await myDelegation(appContext(), actor) : null;
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Settings</h1>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        How the console tells you of requests you may decide. Messages link to the request; decisions are taken here, after sign-in.
      </p>
      <SettingsClient initial={settings} />
      {decides && <DelegationClient initial={delegation} />}
    </div>
  );
}
