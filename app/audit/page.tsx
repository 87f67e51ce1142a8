import type { Metadata } from "next";
import Link from "next/link";
import { pageActor } from "@/lib/auth/server";
import type { ErrorBody } from "@/lib/dto";
import { expectedFailure } from "@/lib/http";
import { appContext } from "@/lib/context";
import { auditPage } from "@/lib/services/audit";
import { queryObject } from "@/lib/services/schemas";
import { CardTable } from "@/components/card-table";
import { AutoFilterForm } from "@/components/auto-filter-form";
import { FilterInput, FilterSelect } from "@/components/filter-fields";
import { Empty, ErrorBox } from "@/components/ui";
import { AUDIT_ACTIONS, auditActionWords } from "@/lib/format";
import { AuditRows } from "./audit-rows";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Audit log" };

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const actor = await pageActor("runs:read-all");
  const q = queryObject(await searchParams);
  let page: Awaited<ReturnType<typeof auditPage>> | null = null;
  let error: ErrorBody | null = null;
  try {
    page = await auditPage(appContext(), actor, { query: q });
  } catch (e) {
    error = expectedFailure(e, [400]);
  }
  const { cursor: _c, ...filters } = q;
  const next = page?.nextCursor ? `/audit?${new URLSearchParams({ ...filters, cursor: page.nextCursor })}` : null;
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Audit log</h1>
      <AutoFilterForm action="/audit" label="Filter audit log">
        <FilterSelect
          id="action"
          name="action"
          label="Action"
          options={AUDIT_ACTIONS}
          labels={Object.fromEntries(AUDIT_ACTIONS.map((a) => [a, auditActionWords(a)]))}
          defaultValue={q.action ?? ""}
        />
        <FilterInput id="actor" name="actor" label="Who (email)" defaultValue={q.actor} />
        <FilterInput id="targetId" name="targetId" label="Run or user id" width="w-72" defaultValue={q.targetId} />
        <Link prefetch={false} href="/audit" className="py-2 text-sm underline">
          Clear
        </Link>
      </AutoFilterForm>
      {error && (
        <ErrorBox title="Invalid filter">
          {error.field}: {error.error}
        </ErrorBox>
      )}
      {page && page.events.length === 0 && <Empty>No events match.</Empty>}
      {page && page.events.length > 0 && (
        <CardTable
          label="Audit events"
          head={
            <>
              <th>When</th>
              <th>Who</th>
              <th>Action</th>
              <th>Target</th>
              <th>Details</th>
            </>
          }
        >
          <AuditRows
            events={page.events.map(({ id, at, actorEmail, action, targetType, targetId, targetName, data }) => ({
              id,
              at,
              actorEmail,
              action,
              targetType,
              targetId,
              targetName,
              data,
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
