import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/http";
import { updateUser } from "@/lib/users/service";

export const PATCH = apiRoute<{ userId: string }>(async ({ actor, params, body }) => ({
  user: await updateUser(db(), actor, params.userId, await body()),
}));
