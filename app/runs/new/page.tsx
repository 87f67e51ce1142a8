import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { agentCatalog } from "@/lib/services/catalog";
import { StartRunForm } from "./start-run-form";

export const dynamic = "force-dynamic";

export default async function NewRunPage({ searchParams }: { searchParams: Promise<{ agent?: string }> }) {
  const actor = await pageActor("runs:start");
  const agents = agentCatalog(appContext(), actor);
  const { agent } = await searchParams;
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Start a run</h1>
      <StartRunForm
        agents={agents}
        initialAgent={agents.some((a) => a.name === agent) ? agent! : (agents.find((a) => !a.unavailable) ?? agents[0])?.name}
      />
    </div>
  );
}
