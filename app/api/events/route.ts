import { requestCaller } from "@/lib/auth/caller";
import { apiRoute } from "@/lib/http";
import { liveEvents } from "@/lib/services/live-events";
import { appContext } from "@/lib/context";

export const dynamic = "force-dynamic";

// The stream keeps its caller's credential to check it again on every event it would send.
export const GET = apiRoute(async ({ query, req }) => {
  const ctx = appContext();
  return liveEvents(ctx, await requestCaller(ctx.db, req), query, req.signal);
});
