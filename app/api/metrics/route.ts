import { appContext } from "@/lib/context";
import { env } from "@/lib/env";
import { metricsAnswer, type OpsAnswer } from "@/lib/ops/server";

export const dynamic = "force-dynamic";

// Prometheus text of this instance's metrics; only with Authorization: Bearer <AFK_METRICS_TOKEN> (off without one).
export async function GET(req: Request) {
  const e = env();
  return respond(await metricsAnswer(appContext(), e.databaseProvider, req.headers.get("authorization"), e.AFK_METRICS_TOKEN, true));
}

function respond(a: OpsAnswer) {
  return new Response(a.body, { status: a.status, headers: { "content-type": a.contentType, "cache-control": "no-store", ...a.headers } });
}
