import { deleteGroupScim, getGroupScim, patchGroupScim, replaceGroupScim } from "@/lib/scim/groups";
import { scimRoute } from "@/lib/scim/http";

type P = { id: string };
export const GET = scimRoute<P>(async ({ ctx, params, query, base }) => ({ body: await getGroupScim(ctx, params.id, query, base) }));
export const PUT = scimRoute<P>(async ({ ctx, caller, params, base, body }) => ({
  body: await replaceGroupScim(ctx, caller, params.id, await body(), base),
}));
export const PATCH = scimRoute<P>(async ({ ctx, caller, params, base, body }) => ({
  body: await patchGroupScim(ctx, caller, params.id, await body(), base),
}));
export const DELETE = scimRoute<P>(async ({ ctx, caller, params }) => {
  await deleteGroupScim(ctx, caller, params.id);
  return { status: 204, body: null };
});
