import { notFound } from "next/navigation";
import { pageActor } from "@/lib/auth/server";
import { NotFoundError } from "@/lib/auth/errors";
import { appContext } from "@/lib/context";
import { getRunView } from "@/lib/runs/service";
import { RunDetail } from "./run-detail";

export const dynamic = "force-dynamic";

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const actor = await pageActor();
  const { runId } = await params;
  const view = await getRunView(appContext(), actor, runId).catch((e) => {
    if (e instanceof NotFoundError) notFound();
    throw e;
  });
  // The view is plain JSON already (lib/dto.ts), exactly what the live refresh from /api/runs/{id} returns.
  return <RunDetail initial={view} />;
}
