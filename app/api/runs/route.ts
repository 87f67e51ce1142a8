import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { listRuns } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";

export const GET = apiRoute(({ actor, query }) => listRuns(appContext(), actor, { query }));
// Idempotency-Key: a retried start returns the run the first request created.
export const POST = apiRoute(
  async ({ req, actor, body }) => startRun(appContext(), actor, { body: await body(), idempotencyKey: req.headers.get("idempotency-key") }),
  { status: 201 },
);
