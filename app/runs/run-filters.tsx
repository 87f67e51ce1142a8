"use client";
// The runs list's filter form, a client component for the same reason as its rows (run-rows.tsx): a server
// component's markup travels twice (the HTML and the Flight payload inlined in the page), a client
// component's as HTML and its props. A plain GET form: it filters without JavaScript too.
import Link from "next/link";
import { RUN_STATES } from "@/lib/runner/state";
import { FilterInput, FilterSelect } from "@/components/filter-fields";

/**
 * The filters as the URL gives them (queryObject), the agents the actor may see (this console's and
 * external runtimes'), the external runtimes' frameworks, and whether the submitter filter is offered.
 */
export function RunFilters({
  q,
  agents,
  frameworks,
  bySubmitter,
}: {
  q: Record<string, string>;
  agents: string[];
  frameworks: string[];
  bySubmitter: boolean;
}) {
  return (
    <form method="get" className="card flex flex-wrap items-end gap-3" aria-label="Filter runs">
      <FilterInput id="q" name="q" label="Run id" width="w-56" defaultValue={q.q} placeholder="id or prefix" />
      {/* ready: paused with every request decided, waiting for someone to press Resume (a longer label would
          widen the select past the phone's row). */}
      <FilterSelect id="state" name="state" label="State" options={[...RUN_STATES, "ready"]} defaultValue={q.state ?? ""} />
      <FilterSelect id="agent" name="agent" label="Agent" options={agents} defaultValue={q.agent ?? ""} />
      {frameworks.length > 0 && (
        <FilterSelect id="framework" name="framework" label="Framework" options={frameworks} defaultValue={q.framework ?? ""} />
      )}
      {bySubmitter && (
        <FilterInput id="submitter" name="submitter" label="Submitter" width="w-48" defaultValue={q.submitter} placeholder="email" />
      )}
      <FilterInput id="from" name="from" label="From" type="date" defaultValue={q.from} />
      <FilterInput id="to" name="to" label="To" type="date" defaultValue={q.to} />
      <button type="submit" className="btn-secondary">
        Filter
      </button>
      <Link prefetch={false} href="/runs" className="text-sm underline">
        Clear
      </Link>
    </form>
  );
}
