import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { listComments, postComment } from "@/lib/services/handoffs";
import { idArg } from "@/lib/validation";

// A request's comment thread, oldest first; posting one tells the others who may decide it.
export const GET = apiRoute<{ approvalId: string }>(async ({ actor, params }) =>
  listComments(appContext(), actor, { approvalId: idArg("approvalId", params.approvalId) }),
);

export const POST = apiRoute<{ approvalId: string }>(
  async ({ actor, params, body }) =>
    postComment(appContext(), actor, { approvalId: idArg("approvalId", params.approvalId), body: await body() }),
  { status: 201 },
);
