import { pageActor } from "@/lib/auth/server";

export const dynamic = "force-dynamic";

export default async function ApprovalsPage() {
  await pageActor("approvals:decide");
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Approvals</h1>
      <p className="card text-sm text-slate-600 dark:text-slate-400">No approvals are waiting.</p>
    </div>
  );
}
