import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { removeView } from "@/lib/services/saved-views";

export const DELETE = apiRoute<{ viewId: string }>(async ({ actor, params }) => removeView(appContext(), actor, { viewId: params.viewId }));
