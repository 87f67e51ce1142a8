// Bearer credentials: what an API token stands for (a person, or a service identity of its own) and which
// runtime a runtime token is. Only a token's sha256 is stored; it is looked up here and nowhere else.
import { createHash } from "node:crypto";
import { tokenWithUser, touchToken } from "../db/accounts.ts";
import type { Db } from "../db/client.ts";
import type { Actor } from "./actor.ts";
import { storedGroups } from "./groups.ts";
import { tokenActorId } from "./revocation.ts";
import { RUNTIME_ROLE, roleSchema } from "./roles.ts";

/** The stored form of a token: its sha256, hex. */
export const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

// A write per request would serialize every API call on SQLite's write lock: a minute is precise enough.
const touch = (db: Db, row: { id: string; lastUsedAt: Date | null }) => {
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) void touchToken(db, row.id).catch(() => undefined);
};

// The actor a bearer token stands for, or null when it is unknown or revoked (lib/auth/caller.ts asks).
export async function actorFromToken(db: Db, token: string): Promise<Actor | null> {
  const row = await tokenWithUser(db, tokenHash(token));
  if (!row || row.revokedAt) return null;
  const role = roleSchema.safeParse(row.role);
  if (!role.success) return null;
  let actor: Actor = { id: `token:${row.id}`, email: `token:${row.name}`, name: row.name, role: role.data };
  if (row.userId) {
    if (!row.user || row.user.disabled || row.user.role !== row.role) return null;
    actor = { id: row.user.id, email: row.user.email, name: row.user.name, role: role.data, groups: storedGroups(row.user.groups) };
  }
  touch(db, row);
  return actor;
}

/** Who calls the runtime protocol: a runtime token (never a person). */
export type RuntimeCaller = { tokenId: string; name: string };

/** The runtime a bearer token stands for, or null when it is unknown, revoked or not a runtime token. */
export async function runtimeFromToken(db: Db, token: string): Promise<RuntimeCaller | null> {
  const row = await tokenWithUser(db, tokenHash(token));
  if (!row || row.revokedAt || row.role !== RUNTIME_ROLE) return null;
  touch(db, row);
  return { tokenId: row.id, name: row.name };
}

// A runtime token is made for no user (no user has the runtime role), so it is a service identity of its
// own: the id its revocation's access notice names (lib/auth/revocation.ts) and its audit entries carry.
export const runtimeActorId = (c: RuntimeCaller) => tokenActorId({ id: c.tokenId, userId: null });
