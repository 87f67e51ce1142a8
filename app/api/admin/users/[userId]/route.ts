import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { updateUser } from "@/lib/services/users";

export const PATCH = apiRoute<{ userId: string }>(async ({ actor, params, body }) => ({
  user: await updateUser(appContext(), actor, { userId: params.userId, body: await body() }),
}));
