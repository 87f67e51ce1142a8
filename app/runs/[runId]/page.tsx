import { pageActor } from "@/lib/auth/server";
import { notFoundOr } from "@/lib/http";
import { appContext } from "@/lib/context";
import { getRunView } from "@/lib/services/run-view";
import { RunDetail } from "./run-detail";
import { runPageView } from "./page-view";

export const dynamic = "force-dynamic";

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const actor = await pageActor();
  const { runId } = await params;
  const view = await getRunView(appContext(), actor, { runId }).catch(notFoundOr);
  // The view is plain JSON already (lib/dto.ts), what the live refresh from /api/runs/{id} returns less the
  // fields the page never reads.
  return <RunDetail initial={runPageView(view)} />;
}
