import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { reassign } from "@/lib/services/handoffs";
import { idArg } from "@/lib/validation";

// A pending request handed to another reviewer (email) or routing group (group), by someone who may decide it.
export const POST = apiRoute<{ approvalId: string }>(async ({ actor, params, body }) =>
  reassign(appContext(), actor, { approvalId: idArg("approvalId", params.approvalId), body: await body() }),
);
