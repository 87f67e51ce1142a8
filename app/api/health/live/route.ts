import { liveAnswer } from "@/lib/ops/server";

export const dynamic = "force-dynamic";

// Liveness: the process answers. Nothing else is checked (a database outage must not restart it).
export async function GET() {
  const a = liveAnswer();
  return new Response(a.body, { status: a.status, headers: { "content-type": a.contentType, "cache-control": "no-store" } });
}
