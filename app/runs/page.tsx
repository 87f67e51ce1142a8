import type { Metadata } from "next";
import Link from "next/link";
import { pageActor } from "@/lib/auth/server";
import type { ErrorBody } from "@/lib/dto";
import { expectedFailure } from "@/lib/http";
import { appContext } from "@/lib/context";
import { SEES_RUNS, allows } from "@/lib/services/access";
import { agentCatalog, filterChoices } from "@/lib/services/catalog";
import { listRuns } from "@/lib/services/run-view";
import { queryObject } from "@/lib/services/schemas";
import { CardTable } from "@/components/card-table";
import { Empty, ErrorBox } from "@/components/ui";
import { RunFilters } from "./run-filters";
import { runRowData } from "./run-row-data";
import { RunRows } from "./run-rows";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Runs" };

type SP = Promise<Record<string, string | string[] | undefined>>;

/**
 * Runs a page (the API's default is 50), as consoles of this kind page their runs: about two screens at
 * 1280 × 800 (13 rows of 38 px below the filters), one at 1920 × 1080; "Next page →" follows the cursor, as
 * before. A page's server time follows its size, and each row is about 0.55 KB of it (its HTML, 0.43, and its
 * data, 0.11). A URL's own `take` still applies.
 */
const RUNS_PAGE = 25;

export default async function RunsPage({ searchParams }: { searchParams: SP }) {
  const actor = await pageActor(SEES_RUNS);
  const q = queryObject(await searchParams);
  let page: Awaited<ReturnType<typeof listRuns>> | null = null;
  let error: ErrorBody | null = null;
  try {
    page = await listRuns(appContext(), actor, { query: { take: String(RUNS_PAGE), ...q } });
  } catch (e) {
    error = expectedFailure(e);
  }
  const { agents, frameworks } = await filterChoices(
    appContext(),
    actor,
    agentCatalog(appContext(), actor).map((a) => a.name),
  );
  const { cursor: _c, ...filters } = q;
  const next = page?.nextCursor ? `/runs?${new URLSearchParams({ ...filters, cursor: page.nextCursor })}` : null;
  return (
    <div className="space-y-4">
      <div className="flex items-center justify-between">
        <h1 className="text-xl font-semibold">Runs</h1>
        {allows(actor, "runs:start") && (
          <Link prefetch={false} className="btn-primary" href="/runs/new">
            Start a run
          </Link>
        )}
      </div>
      <RunFilters q={filters} agents={agents} frameworks={frameworks} bySubmitter={allows(actor, "runs:read-all")} />
      {error && (
        <ErrorBox title="Invalid filter">
          {error.field ? `${error.field}: ` : ""}
          {error.error}
        </ErrorBox>
      )}
      {page && page.runs.length === 0 && <Empty>No runs match.</Empty>}
      {page && page.runs.length > 0 && (
        <CardTable
          label="Runs"
          head={
            <>
              <th>Run</th>
              <th>Agent</th>
              <th>State</th>
              <th>Step</th>
              <th>Submitter</th>
              <th>Started</th>
              <th>Tokens</th>
              <th>Cost</th>
            </>
          }
        >
          <RunRows runs={page.runs.map(runRowData)} />
        </CardTable>
      )}
      {next && (
        <Link prefetch={false} className="btn-secondary" href={next}>
          Next page →
        </Link>
      )}
    </div>
  );
}
