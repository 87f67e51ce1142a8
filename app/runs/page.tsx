import Link from "next/link";
import { pageActor } from "@/lib/auth/server";
import type { ErrorBody } from "@/lib/dto";
import { expectedFailure } from "@/lib/http";
import { appContext } from "@/lib/context";
import { SEES_RUNS, allows } from "@/lib/services/access";
import { agentCatalog } from "@/lib/services/catalog";
import { listRuns } from "@/lib/services/run-view";
import { queryObject } from "@/lib/services/schemas";
import { RUN_STATES } from "@/lib/runner";
import { CardTable } from "@/components/card-table";
import { Empty, ErrorBox } from "@/components/ui";
import { RunRows } from "./run-rows";

export const dynamic = "force-dynamic";

type SP = Promise<Record<string, string | string[] | undefined>>;

export default async function RunsPage({ searchParams }: { searchParams: SP }) {
  const actor = await pageActor(SEES_RUNS);
  const q = queryObject(await searchParams);
  let page: Awaited<ReturnType<typeof listRuns>> | null = null;
  let error: ErrorBody | null = null;
  try {
    page = await listRuns(appContext(), actor, { query: q });
  } catch (e) {
    error = expectedFailure(e);
  }
  const agents = agentCatalog(appContext(), actor).map((a) => a.name);
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
      <form method="get" className="card flex flex-wrap items-end gap-3" aria-label="Filter runs">
        <div>
          <label className="label" htmlFor="q">
            Run id
          </label>
          <input id="q" name="q" className="input mt-1 w-56" defaultValue={q.q} placeholder="id or prefix" />
        </div>
        <div>
          <label className="label" htmlFor="state">
            State
          </label>
          <select id="state" name="state" className="input mt-1" defaultValue={q.state ?? ""}>
            <option value="">Any</option>
            {RUN_STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label className="label" htmlFor="agent">
            Agent
          </label>
          <select id="agent" name="agent" className="input mt-1" defaultValue={q.agent ?? ""}>
            <option value="">Any</option>
            {agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        {allows(actor, "runs:read-all") && (
          <div>
            <label className="label" htmlFor="submitter">
              Submitter
            </label>
            <input id="submitter" name="submitter" className="input mt-1 w-48" defaultValue={q.submitter} placeholder="email" />
          </div>
        )}
        <div>
          <label className="label" htmlFor="from">
            From
          </label>
          <input id="from" name="from" type="date" className="input mt-1" defaultValue={q.from} />
        </div>
        <div>
          <label className="label" htmlFor="to">
            To
          </label>
          <input id="to" name="to" type="date" className="input mt-1" defaultValue={q.to} />
        </div>
        <button type="submit" className="btn-secondary">
          Filter
        </button>
        <Link prefetch={false} href="/runs" className="text-sm underline">
          Clear
        </Link>
      </form>
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
          <RunRows
            runs={page.runs.map((r) => ({
              id: r.id,
              agentName: r.agentName,
              state: r.state,
              step: r.step,
              submittedByEmail: r.submittedByEmail,
              createdAt: r.createdAt,
              totalTokens: r.totalTokens,
              costUsd: r.costUsd,
            }))}
          />
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
