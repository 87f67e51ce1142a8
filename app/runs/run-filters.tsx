"use client";
// The runs list's filter form, a client component for the same reason as its rows (run-rows.tsx): a server
// component's markup travels twice (the HTML and the Flight payload inlined in the page), a client
// component's as HTML and its props. A plain GET form: it filters without JavaScript too.
import Link from "next/link";
import { RUN_STATES } from "@/lib/runner/state";
import { FilterSelect } from "@/components/filter-select";

/** The filters as the URL gives them (queryObject), the agents the actor may see, and whether the submitter filter is offered. */
export function RunFilters({ q, agents, bySubmitter }: { q: Record<string, string>; agents: string[]; bySubmitter: boolean }) {
  return (
    <form method="get" className="card flex flex-wrap items-end gap-3" aria-label="Filter runs">
      <div>
        <label className="label" htmlFor="q">
          Run id
        </label>
        <input id="q" name="q" className="input mt-1 h-9 w-56" defaultValue={q.q} placeholder="id or prefix" />
      </div>
      <FilterSelect id="state" name="state" label="State" options={RUN_STATES} defaultValue={q.state ?? ""} />
      <FilterSelect id="agent" name="agent" label="Agent" options={agents} defaultValue={q.agent ?? ""} />
      {bySubmitter && (
        <div>
          <label className="label" htmlFor="submitter">
            Submitter
          </label>
          <input id="submitter" name="submitter" className="input mt-1 h-9 w-48" defaultValue={q.submitter} placeholder="email" />
        </div>
      )}
      <div>
        <label className="label" htmlFor="from">
          From
        </label>
        <input id="from" name="from" type="date" className="input mt-1 h-9" defaultValue={q.from} />
      </div>
      <div>
        <label className="label" htmlFor="to">
          To
        </label>
        <input id="to" name="to" type="date" className="input mt-1 h-9" defaultValue={q.to} />
      </div>
      <button type="submit" className="btn-secondary">
        Filter
      </button>
      <Link prefetch={false} href="/runs" className="text-sm underline">
        Clear
      </Link>
    </form>
  );
}
