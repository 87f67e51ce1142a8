import type { Metadata } from "next";
import Link from "next/link";
import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { fmtTime } from "@/lib/format";
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
      <table className="w-full text-sm" aria-label="Delivery log">
        <thead>
          <tr className="text-left">
            <th>Created</th>
            <th>Recipient</th>
            <th>Channel</th>
            <th>Kind</th>
            <th>Request</th>
            <th>Status</th>
            <th>Attempts</th>
            <th>Sent</th>
            <th>Last error</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} className="border-t border-slate-200 dark:border-slate-700">
              <td>{fmtTime(r.createdAt)}</td>
              <td>{r.recipient}</td>
              <td>{r.channel}</td>
              <td>{r.kind === "reminder" ? `reminder ${r.seq}` : r.kind}</td>
              <td>
                <Link href={`/runs/${encodeURIComponent(r.runId)}`}>
                  {r.agent} · {r.tool}
                </Link>
              </td>
              <td>{r.status}</td>
              <td>{r.attempts}</td>
              <td>{r.sentAt ? fmtTime(r.sentAt) : "—"}</td>
              <td className="max-w-xs truncate" title={r.lastError ?? undefined}>
                {r.lastError ?? "—"}
              </td>
            </tr>
          ))}
          {!rows.length && (
            <tr>
              <td colSpan={9} className="py-4 text-slate-500">
                Nothing yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
