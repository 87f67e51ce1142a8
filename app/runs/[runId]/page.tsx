import type { Metadata } from "next";
import { pageActor } from "@/lib/auth/server";
import { notFoundOr } from "@/lib/http";
import { appContext } from "@/lib/context";
import { getRunView } from "@/lib/services/run-view";
import { RunDetail } from "./run-detail";
import { runPageView } from "./page-view";

export const dynamic = "force-dynamic";

// The run's short id, from the URL (no read of the run for a title).
export async function generateMetadata({ params }: { params: Promise<{ runId: string }> }): Promise<Metadata> {
  return { title: `Run ${(await params).runId.slice(0, 8)}` };
}

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const actor = await pageActor();
  const { runId } = await params;
  const view = await getRunView(appContext(), actor, { runId }).catch(notFoundOr);
  // The view is plain JSON already (lib/dto.ts), what the live refresh from /api/runs/{id} returns less the
  // fields the page never reads.
  return <RunDetail initial={runPageView(view)} />;
}
