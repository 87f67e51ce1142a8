import type { Metadata } from "next";
import { cookies } from "next/headers";
import { pageActor } from "@/lib/auth/server";
import { appContext } from "@/lib/context";
import { agentCatalog } from "@/lib/services/catalog";
import { LAST_AGENT_COOKIE, lastAgentOf } from "./last-agent";
import { StartRunForm } from "./start-run-form";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Start a run" };

export default async function NewRunPage({ searchParams }: { searchParams: Promise<{ agent?: string }> }) {
  const actor = await pageActor("runs:start");
  const agents = agentCatalog(appContext(), actor);
  const { agent } = await searchParams;
  // ?agent= first, then the agent this person last started, then the first that can run here.
  const last = lastAgentOf((await cookies()).get(LAST_AGENT_COOKIE)?.value, actor.id);
  const startable = (name: string | null | undefined) => agents.find((a) => a.name === name && !a.unavailable)?.name;
  const initialAgent =
    (agents.some((a) => a.name === agent) ? agent : undefined) ??
    startable(last) ??
    (agents.find((a) => !a.unavailable) ?? agents[0])?.name;
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Start a run</h1>
      <StartRunForm agents={agents} initialAgent={initialAgent} userId={actor.id} />
    </div>
  );
}
