import type { Metadata } from "next";
import Link from "next/link";
import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { CardRow, CardTable, LabelledCell, LEAD, TAP } from "@/components/card-table";
import { Empty } from "@/components/ui";
import { When } from "@/components/when";
import { listDeliveries } from "@/lib/services/notifications";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Notifications" };

export default async function NotificationsPage({ searchParams }: { searchParams: Promise<{ status?: string }> }) {
  const actor = await pageActor("users:manage");
  const { status } = await searchParams;
  const rows = await listDeliveries(appContext(), actor, { query: status ? { status } : {} });
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Notifications</h1>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Each message to a reviewer, newest first: planned, sent (one per recipient, a digest carries several), retried, or skipped when the
        request was decided first. Setup: docs/notifications.md.
      </p>
      <nav className="flex gap-3 text-sm" aria-label="Filter by status">
        {["all", "pending", "sent", "failed", "skipped"].map((s) => (
          <Link
            key={s}
            href={s === "all" ? "/admin/notifications" : `/admin/notifications?status=${s}`}
            aria-current={(status ?? "all") === s ? "page" : undefined}
          >
            {s}
          </Link>
        ))}
      </nav>
      {rows.length === 0 ? (
        <Empty>No notifications{status && status !== "all" ? ` ${status}` : ""} yet.</Empty>
      ) : (
        <CardTable
          label="Delivery log"
          head={
            <>
              <th>Request</th>
              <th>Status</th>
              <th>Recipient</th>
              <th>Channel</th>
              <th>Kind</th>
              <th>Attempts</th>
              <th>Created</th>
              <th>Sent</th>
              <th>Last error</th>
            </>
          }
        >
          {rows.map((r) => (
            <CardRow key={r.id} lead>
              <td className={`${LEAD[0]} max-sm:font-semibold`}>
                <Link className={TAP} href={`/runs/${encodeURIComponent(r.runId)}`}>
                  {r.agent} · {r.tool}
                </Link>
              </td>
              <td className={`${LEAD[1]} max-sm:text-xs`}>
                <span className="badge">{r.status}</span>
              </td>
              <LabelledCell label="To" className="break-all">
                {r.recipient}
              </LabelledCell>
              <LabelledCell label="Channel">{r.channel}</LabelledCell>
              <LabelledCell label="Kind">{r.kind === "reminder" ? `reminder ${r.seq}` : r.kind}</LabelledCell>
              <LabelledCell label="Attempts">{r.attempts}</LabelledCell>
              <LabelledCell label="Created">
                <When at={r.createdAt} />
              </LabelledCell>
              <LabelledCell label="Sent">
                <When at={r.sentAt} />
              </LabelledCell>
              <LabelledCell label="Last error" className="max-w-xs truncate" title={r.lastError ?? undefined}>
                {r.lastError ?? "—"}
              </LabelledCell>
            </CardRow>
          ))}
        </CardTable>
      )}
    </div>
  );
}
