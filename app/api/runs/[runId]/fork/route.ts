import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { forkRun } from "@/lib/services/operate";
import { forkPreview } from "@/lib/services/fork-preview";

export const GET = apiRoute<{ runId: string }>(({ actor, params, query }) =>
  forkPreview(appContext(), actor, { runId: params.runId, query }),
);

export const POST = apiRoute<{ runId: string }>(
  async ({ actor, params, body }) => forkRun(appContext(), actor, { runId: params.runId, body: await body() }),
  { status: 201 },
);
