"use client";
// The runs list's filter form, a client component for the same reason as its rows (run-rows.tsx): a server
// component's markup travels twice (the HTML and the Flight payload inlined in the page), a client
// component's as HTML and its props. Applies as it changes (AutoFilterForm), and without JavaScript too.
import Link from "next/link";
import { RUN_STATES } from "@/lib/runner/run-states";
import { AutoFilterForm } from "@/components/auto-filter-form";
import { FilterInput, FilterSelect } from "@/components/filter-fields";
import { SaveView } from "@/components/saved-views";

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
    <AutoFilterForm action="/runs" label="Filter runs">
      <FilterInput id="q" name="q" type="search" label="Search" width="w-56" defaultValue={q.q} placeholder="order id, customer, run id" />
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
      <Link prefetch={false} href="/runs" className="py-2 text-sm underline">
        Clear
      </Link>
      <SaveView scope="runs" filters={q} />
    </AutoFilterForm>
  );
}
