import type { Metadata } from "next";
import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { SEES_RUNS, allows } from "@/lib/services/access";
import { filterChoices } from "@/lib/services/catalog";
import { inboxFirstScreen } from "@/lib/services/inbox";
import { listRuns } from "@/lib/services/run-view";
import { queryObject } from "@/lib/services/schemas";
import { FIRST_ROWS, packFirstScreen } from "./first-screen";
import { Inbox } from "./inbox";
import { ReadyRuns } from "./ready-runs";
import { ApprovalSearch } from "./approval-search";

const searchQuery = (s: { q: string; group: string }) =>
  new URLSearchParams({ ...(s.q ? { q: s.q } : {}), ...(s.group ? { group: s.group } : {}) }).toString();

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Approvals" };

/** How many runs ready to resume the inbox lists (the rest behind a link to the runs list's filter). */
const READY_SHOWN = 5;

export default async function ApprovalsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const actor = await pageActor("approvals:decide");
  const sp = queryObject(await searchParams);
  const search = { q: sp.q?.trim() ?? "", group: sp.group ?? "" };
  const initial = packFirstScreen(await inboxFirstScreen(appContext(), actor, FIRST_ROWS));
  const { agents, frameworks } = await filterChoices(appContext(), actor);
  // Runs whose agent waits for a Resume once everything is decided (those the actor may see).
  const ready = allows(actor, SEES_RUNS)
    ? await listRuns(appContext(), actor, { query: { state: "ready", take: String(READY_SHOWN) } })
    : null;
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Approvals</h1>
      <ApprovalSearch initial={search} groups={actor.groups ?? []} />
      <Inbox initial={initial} agents={agents} frameworks={frameworks} search={searchQuery(search)} />
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
