import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { revokeToken } from "@/lib/services/tokens";

export const DELETE = apiRoute<{ tokenId: string }>(async ({ actor, params }) => ({
  token: await revokeToken(appContext(), actor, { tokenId: params.tokenId }),
}));
