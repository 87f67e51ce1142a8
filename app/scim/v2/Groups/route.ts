import { createGroupScim, listGroupsScim } from "@/lib/scim/groups";
import { scimRoute } from "@/lib/scim/http";

export const GET = scimRoute(async ({ ctx, query, base }) => ({ body: await listGroupsScim(ctx, query, base) }));
export const POST = scimRoute(async ({ ctx, caller, base, body }) => ({
  status: 201,
  body: await createGroupScim(ctx, caller, await body(), base),
}));
