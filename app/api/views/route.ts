import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { listSavedViews, saveView } from "@/lib/services/saved-views";

export const GET = apiRoute(async ({ actor }) => listSavedViews(appContext(), actor));
export const POST = apiRoute(async ({ actor, body }) => saveView(appContext(), actor, { body: await body() }), { status: 201 });
