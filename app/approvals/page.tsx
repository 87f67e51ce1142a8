import type { Metadata } from "next";
import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { SEES_RUNS, allows } from "@/lib/services/access";
import { filterChoices } from "@/lib/services/catalog";
import { inboxFirstScreen } from "@/lib/services/inbox";
import { listRuns } from "@/lib/services/run-view";
import { FIRST_ROWS, packFirstScreen } from "./first-screen";
import { Inbox } from "./inbox";
import { ReadyRuns } from "./ready-runs";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Approvals" };

/** How many runs ready to resume the inbox lists (the rest behind a link to the runs list's filter). */
const READY_SHOWN = 5;

export default async function ApprovalsPage() {
  const actor = await pageActor("approvals:decide");
  const initial = packFirstScreen(await inboxFirstScreen(appContext(), actor, FIRST_ROWS));
  const { agents, frameworks } = await filterChoices(appContext(), actor);
  // Runs whose agent waits for a Resume once everything is decided (those the actor may see).
  const ready = allows(actor, SEES_RUNS)
    ? await listRuns(appContext(), actor, { query: { state: "ready", take: String(READY_SHOWN) } })
    : null;
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Approvals</h1>
      <Inbox initial={initial} agents={agents} frameworks={frameworks} />
      {ready && (
        <ReadyRuns
          initial={{
            runs: ready.runs.map(({ id, agentName, submittedByEmail }) => ({ id, agentName, submittedByEmail })),
            more: !!ready.nextCursor,
          }}
          shown={READY_SHOWN}
        />
      )}
    </div>
  );
}
