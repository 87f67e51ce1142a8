import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { listRuns, startRun } from "@/lib/runs/service";

export const GET = apiRoute(({ actor, query }) => listRuns(db(), actor, query));
// Idempotency-Key: a retried start returns the run the first request created.
export const POST = apiRoute(
  async ({ req, actor, body }) => startRun(appContext(), actor, await body(), { idempotencyKey: req.headers.get("idempotency-key") }),
  { status: 201 },
);
