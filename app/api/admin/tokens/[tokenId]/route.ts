import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/http";
import { revokeToken } from "@/lib/tokens/service";

export const DELETE = apiRoute<{ tokenId: string }>(async ({ actor, params }) => ({
  token: await revokeToken(db(), actor, params.tokenId),
}));
