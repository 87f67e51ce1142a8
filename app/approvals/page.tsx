import { db } from "@/lib/db/client";
import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { agentNames, listInbox } from "@/lib/runs/service";
import { Inbox } from "./inbox";

export const dynamic = "force-dynamic";

export default async function ApprovalsPage() {
  const actor = await pageActor("approvals:decide");
  const initial = await listInbox(db(), actor, {});
  const agents = agentNames(appContext());
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Approvals</h1>
      <Inbox initial={initial} agents={agents} />
    </div>
  );
}
