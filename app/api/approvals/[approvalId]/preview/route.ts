import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { approvalPreview } from "@/lib/services/preview";
import { idArg } from "@/lib/validation";

// The inbox's preview pane: one request with the conversation that led to it and the results beside it.
export const GET = apiRoute<{ approvalId: string }>(async ({ actor, params }) =>
  approvalPreview(appContext(), actor, { approvalId: idArg("approvalId", params.approvalId) }),
);
