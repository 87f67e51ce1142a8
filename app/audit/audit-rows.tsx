"use client";
// The audit log's rows, rendered here from their data (as the runs list's, app/runs/run-rows.tsx): a server
// component's rows travel twice (as HTML and, as markup again, in the Flight payload inlined in the page), a
// client component's as HTML and their props. The same markup as the server-rendered rows were; the cells'
// classes are utilities in app/globals.css (audit-*).
import { When } from "@/components/when";
import Link from "next/link";
import { CardRow, PhoneLabel, TAP } from "@/components/card-table";
import { JsonView } from "@/components/ui";
import { auditActionWords } from "@/lib/format";
import type { AuditEventDto } from "@/lib/dto";

/** What a row shows of an event (only this crosses to the browser). */
export type AuditRowData = Pick<AuditEventDto, "id" | "at" | "actorEmail" | "action" | "targetType" | "targetId" | "targetName" | "data">;

export function AuditRows({ events }: { events: AuditRowData[] }) {
  return events.map((e) => (
    <CardRow key={e.id} data-testid={`audit-${e.action}`}>
      <td className="audit-when">
        <When at={e.at} />
      </td>
      <td className="audit-who">{e.actorEmail ?? "system"}</td>
      {/* In words; the identifier (what the API and the filter's URL say) on hover. */}
      <td className="audit-action" title={e.action}>
        {auditActionWords(e.action)}
      </td>
      {/* Named as people name it (a run by its agent, a user by email, a token by name); the id on hover. */}
      <td className="audit-target" title={`${e.targetType} ${e.targetId}`}>
        {e.targetType === "run" ? (
          <>
            <PhoneLabel>Run</PhoneLabel>
            <Link prefetch={false} className={`underline ${TAP}`} href={`/runs/${encodeURIComponent(e.targetId)}`}>
              {e.targetName ?? `run ${e.targetId.slice(0, 8)}`}
            </Link>
          </>
        ) : (
          (e.targetName ?? `${e.targetType} ${e.targetId.slice(0, 12)}`)
        )}
      </td>
      <td className="audit-details">
        <details>
          <summary className="audit-summary">before / after</summary>
          <JsonView value={e.data} />
        </details>
      </td>
    </CardRow>
  ));
}
