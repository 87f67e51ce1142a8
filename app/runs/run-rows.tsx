"use client";
// The runs list's rows, rendered here from their data: a server component's rows travel twice (as HTML and,
// as markup again, in the Flight payload inlined in the page), a client component's as HTML and their
// props. The same markup as a server-rendered CardRow: a table row on a desk, a card on a phone; its cells'
// classes are utilities in app/globals.css (run-id, run-link, run-agent: LEAD's order and TAP's target).
import Link from "next/link";
import { CardRow, LabelledCell, LEAD } from "@/components/card-table";
import { StateBadge } from "@/components/ui";
import { fmtCost, fmtTime } from "@/lib/format";
import type { RunDto } from "@/lib/dto";

/** What a row shows of a run (only this crosses to the browser). */
export type RunRowData = Pick<RunDto, "id" | "agentName" | "state" | "step" | "submittedByEmail" | "createdAt" | "totalTokens" | "costUsd">;

export function RunRows({ runs }: { runs: RunRowData[] }) {
  return runs.map((r) => (
    <CardRow key={r.id} lead data-testid={`run-row-${r.id}`}>
      <td className="run-id">
        <Link prefetch={false} className="run-link" href={`/runs/${encodeURIComponent(r.id)}`}>
          {r.id.slice(0, 8)}
        </Link>
      </td>
      <td className="run-agent">{r.agentName}</td>
      <td className={LEAD[1]}>
        <StateBadge state={r.state} />
      </td>
      <LabelledCell label="Step">{r.step}</LabelledCell>
      <LabelledCell label="by" className="max-sm:break-all">
        {r.submittedByEmail ?? "—"}
      </LabelledCell>
      <LabelledCell label="Started">{fmtTime(r.createdAt)}</LabelledCell>
      <LabelledCell label="Tokens">{r.totalTokens}</LabelledCell>
      <LabelledCell label="Cost">{fmtCost(r.costUsd)}</LabelledCell>
    </CardRow>
  ));
}
