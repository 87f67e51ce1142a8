import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { forkRun } from "@/lib/runs/service";

export const POST = apiRoute<{ runId: string }>(
  async ({ actor, params, body }) => forkRun(appContext(), actor, params.runId, await body()),
  { status: 201 },
);
