import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { agentNames } from "@/lib/services/catalog";
import { listInbox } from "@/lib/services/inbox";
import { firstScreen, toolsOf } from "./first-screen";
import { Inbox } from "./inbox";

export const dynamic = "force-dynamic";

export default async function ApprovalsPage() {
  const actor = await pageActor("approvals:decide");
  const inbox = await listInbox(appContext(), actor, { query: {} });
  const agents = agentNames(appContext(), actor);
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Approvals</h1>
      <Inbox initial={firstScreen(inbox)} tools={toolsOf(inbox)} agents={agents} />
    </div>
  );
}
