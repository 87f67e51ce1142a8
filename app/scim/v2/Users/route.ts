import { scimRoute } from "@/lib/scim/http";
import { createUserScim, listUsersScim } from "@/lib/scim/users";

export const GET = scimRoute(async ({ ctx, query, base }) => ({ body: await listUsersScim(ctx, query, base) }));
export const POST = scimRoute(async ({ ctx, caller, base, body }) => ({
  status: 201,
  body: await createUserScim(ctx, caller, await body(), base),
}));
