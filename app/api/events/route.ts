import { apiRoute } from "@/lib/http";
import { liveEvents } from "@/lib/live/stream";
import { appContext } from "@/lib/context";

export const dynamic = "force-dynamic";

export const GET = apiRoute(({ actor, query, req }) => liveEvents(appContext(), actor, query, req.signal));
