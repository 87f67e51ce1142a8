import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/http";
import { createUser, listUsers } from "@/lib/users/service";

export const GET = apiRoute(async ({ actor }) => ({ users: await listUsers(db(), actor) }));
export const POST = apiRoute(async ({ actor, body }) => ({ user: await createUser(db(), actor, await body()) }), { status: 201 });
