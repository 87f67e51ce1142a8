"use client";
// The audit log's rows, rendered here from their data (as the runs list's, app/runs/run-rows.tsx): a server
// component's rows travel twice (as HTML and, as markup again, in the Flight payload inlined in the page), a
// client component's as HTML and their props. The same markup as the server-rendered rows were.
import Link from "next/link";
import { CardRow, LEAD, PhoneLabel, TAP } from "@/components/card-table";
import { JsonView } from "@/components/ui";
import { fmtTime } from "@/lib/format";
import type { AuditEventDto } from "@/lib/dto";

/** What a row shows of an event (only this crosses to the browser). */
export type AuditRowData = Pick<AuditEventDto, "id" | "at" | "actorEmail" | "action" | "targetType" | "targetId" | "data">;

export function AuditRows({ events }: { events: AuditRowData[] }) {
  return events.map((e) => (
    <CardRow key={e.id} data-testid={`audit-${e.action}`}>
      <td className={`whitespace-nowrap ${LEAD[1]} max-sm:ml-auto max-sm:text-xs max-sm:text-slate-600 max-sm:dark:text-slate-400`}>
        {fmtTime(e.at)}
      </td>
      <td className={`${LEAD[2]} max-sm:basis-full max-sm:break-all`}>{e.actorEmail ?? "system"}</td>
      <td className={`font-mono ${LEAD[0]} max-sm:font-semibold`}>{e.action}</td>
      <td className="font-mono text-xs max-sm:break-all">
        {e.targetType === "run" ? (
          <>
            <PhoneLabel>Run</PhoneLabel>
            <Link prefetch={false} className={`underline ${TAP}`} href={`/runs/${encodeURIComponent(e.targetId)}`}>
              {e.targetId}
            </Link>
          </>
        ) : (
          `${e.targetType}:${e.targetId}`
        )}
      </td>
      <td className="max-w-md max-sm:mt-1.5 max-sm:-mb-3 max-sm:basis-full">
        <details>
          <summary className="cursor-pointer text-xs max-sm:pt-2 max-sm:pb-4">before / after</summary>
          <JsonView value={e.data} />
        </details>
      </td>
    </CardRow>
  ));
}
