import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { forkRun } from "@/lib/services/operate";

export const POST = apiRoute<{ runId: string }>(
  async ({ actor, params, body }) => forkRun(appContext(), actor, { runId: params.runId, body: await body() }),
  { status: 201 },
);
