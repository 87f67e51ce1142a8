import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/http";
import { createToken, listTokens } from "@/lib/tokens/service";

export const GET = apiRoute(async ({ actor }) => ({ tokens: await listTokens(db(), actor) }));
export const POST = apiRoute(async ({ actor, body }) => createToken(db(), actor, await body()), { status: 201 });
