import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { decide } from "@/lib/runs/service";

export const POST = apiRoute<{ approvalId: string }>(async ({ actor, params, body }) =>
  decide(appContext(), actor, params.approvalId, await body()),
);
