import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { createToken, listTokens } from "@/lib/services/tokens";

export const GET = apiRoute(async ({ actor }) => ({ tokens: await listTokens(appContext(), actor) }));
export const POST = apiRoute(async ({ actor, body }) => createToken(appContext(), actor, { body: await body() }), { status: 201 });
