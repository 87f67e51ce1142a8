import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { filterChoices } from "@/lib/services/catalog";
import { inboxFirstScreen } from "@/lib/services/inbox";
import { FIRST_ROWS, packFirstScreen } from "./first-screen";
import { Inbox } from "./inbox";

export const dynamic = "force-dynamic";

export default async function ApprovalsPage() {
  const actor = await pageActor("approvals:decide");
  const initial = packFirstScreen(await inboxFirstScreen(appContext(), actor, FIRST_ROWS));
  const { agents, frameworks } = await filterChoices(appContext(), actor);
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Approvals</h1>
      <Inbox initial={initial} agents={agents} frameworks={frameworks} />
    </div>
  );
}
