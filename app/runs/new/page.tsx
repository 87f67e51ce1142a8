import { pageActor } from "@/lib/auth/server";

export const dynamic = "force-dynamic";

export default async function NewRunPage() {
  await pageActor("runs:start");
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Start a run</h1>
      <p className="card text-sm text-slate-600 dark:text-slate-400">Pick an agent to start.</p>
    </div>
  );
}
