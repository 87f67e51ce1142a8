import { pageActor } from "@/lib/auth/server";

export const dynamic = "force-dynamic";

export default async function RunsPage() {
  await pageActor("runs:read-all");
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Runs</h1>
      <p className="card text-sm text-slate-600 dark:text-slate-400">No runs yet.</p>
    </div>
  );
}
