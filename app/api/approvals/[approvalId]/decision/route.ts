import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";

export const POST = apiRoute<{ approvalId: string }>(async ({ actor, params, body }) =>
  decide(appContext(), actor, { approvalId: params.approvalId, body: await body() }),
);
