import { scimRoute } from "@/lib/scim/http";
import { deleteUserScim, getUserScim, patchUserScim, replaceUserScim } from "@/lib/scim/users";

type P = { id: string };
export const GET = scimRoute<P>(async ({ ctx, params, base }) => ({ body: await getUserScim(ctx, params.id, base) }));
export const PUT = scimRoute<P>(async ({ ctx, caller, params, base, body }) => ({
  body: await replaceUserScim(ctx, caller, params.id, await body(), base),
}));
export const PATCH = scimRoute<P>(async ({ ctx, caller, params, base, body }) => ({
  body: await patchUserScim(ctx, caller, params.id, await body(), base),
}));
export const DELETE = scimRoute<P>(async ({ ctx, caller, params }) => {
  await deleteUserScim(ctx, caller, params.id);
  return { status: 204, body: null };
});
