// Who is calling /scim/v2: a live token an admin made with role scim (stored hashed like every API token,
// revoked like one). It is no actor anywhere else, and no other token or session is one here.
import "server-only";
import { createHash } from "node:crypto";
import { SCIM_ROLE } from "../auth/roles.ts";
import { tokenWithUser, touchToken } from "../db/accounts.ts";
import type { Db } from "../db/client.ts";
import { ScimError } from "./protocol.ts";

export type ScimCaller = { tokenId: string; name: string; audit: { id: string; email: string } };

export async function scimCaller(db: Db, authorization: string | null): Promise<ScimCaller> {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  const row = token ? await tokenWithUser(db, createHash("sha256").update(token).digest("hex")) : null;
  if (!row || row.revokedAt || row.role !== SCIM_ROLE)
    throw new ScimError(401, "A live SCIM token is required (Authorization: Bearer <token>; an admin makes one with role scim)");
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) void touchToken(db, row.id).catch(() => undefined);
  return { tokenId: row.id, name: row.name, audit: { id: `token:${row.id}`, email: `token:${row.name}` } };
}
