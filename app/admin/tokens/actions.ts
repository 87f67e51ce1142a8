"use server";
// API tokens from the admin page, as server actions calling the same services as POST /api/admin/tokens and
// DELETE /api/admin/tokens/{id}. A server action is a public endpoint: each call resolves the session
// again and the service checks that the caller is an admin, and audits the change.
import { currentActor } from "@/lib/auth/server";
import { runAction } from "@/lib/http";
import { appContext } from "@/lib/context";
import { createToken, revokeToken } from "@/lib/services/tokens";
import { idArg } from "@/lib/validation";

export async function createTokenAction(input: unknown) {
  return runAction(async () => createToken(appContext(), await currentActor(), { body: input }));
}

export async function revokeTokenAction(tokenId: string) {
  return runAction(async () => revokeToken(appContext(), await currentActor(), { tokenId: idArg("tokenId", tokenId) }));
}
