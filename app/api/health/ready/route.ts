import { appContext } from "@/lib/context";
import { env } from "@/lib/env";
import { readyAnswer } from "@/lib/ops/server";

export const dynamic = "force-dynamic";

// Readiness: the database answers, every migration of this build is applied, and the instance is not
// draining (503 from SIGTERM on).
export async function GET() {
  const a = await readyAnswer(appContext(), env().databaseProvider);
  return new Response(a.body, { status: a.status, headers: { "content-type": a.contentType, "cache-control": "no-store" } });
}
