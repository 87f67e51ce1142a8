import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { createUser, listUsers } from "@/lib/services/users";

export const GET = apiRoute(async ({ actor }) => ({ users: await listUsers(appContext(), actor) }));
export const POST = apiRoute(async ({ actor, body }) => ({ user: await createUser(appContext(), actor, { body: await body() }) }), {
  status: 201,
});
