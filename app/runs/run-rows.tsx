"use client";
// The runs list's rows, rendered here from their data: a server component's rows travel twice (as HTML and,
// as markup again, in the Flight payload inlined in the page), a client component's as HTML and their
// props, each row an array of its values (run-row-data.ts). The same markup as a server-rendered CardRow: a
// table row on a desk, a card on a phone. Its classes are utilities in app/globals.css (run-row: the lead
// row's card, and its labelled cells' small text and phone labels, so no cell repeats them; run-id,
// run-link, run-agent, run-state, run-by: LEAD's order and TAP's target).
import { When } from "@/components/when";
import Link from "next/link";
import { ForkedFrom } from "@/components/forked-from";
import { StateBadge } from "@/components/ui";
import { READY_TO_RESUME, fmtCost } from "@/lib/format";
import type { RunRowData } from "./run-row-data";

export function RunRows({ runs }: { runs: RunRowData[] }) {
  return runs.map(([id, agentName, state, step, submittedByEmail, createdAtMs, totalTokens, costUsd, ready, forkedFrom, about]) => (
    <tr key={id} className="run-row">
      <td className="run-id">
        <Link prefetch={false} className="run-link" href={`/runs/${encodeURIComponent(id)}`}>
          {id.slice(0, 8)}
        </Link>
      </td>
      <td className="run-agent">
        {agentName}
        {forkedFrom && <ForkedFrom runId={forkedFrom} />}
        {about && (
          <span className="run-about" title={about}>
            {about}
          </span>
        )}
      </td>
      <td className="run-state">
        <StateBadge state={state} />
        {ready && (
          <span className="badge badge-answered ml-1" data-testid="run-ready">
            {READY_TO_RESUME}
          </span>
        )}
      </td>
      <td>
        <span>Step </span>
        {step}
      </td>
      <td className="run-by">
        <span>by </span>
        {submittedByEmail ?? "—"}
      </td>
      <td>
        <span>Started </span>
        <When at={createdAtMs} />
      </td>
      <td>
        <span>Tokens </span>
        {totalTokens}
      </td>
      <td>
        <span>Cost </span>
        {fmtCost(costUsd)}
      </td>
    </tr>
  ));
}
