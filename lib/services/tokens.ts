// API tokens: an admin creates one for a role, sees it once, and can revoke it. Only its sha256 is stored.
// A token made for a user acts as that user (same id and email in decisions and the audit log, so quorum
// and separation of duties count one person with two tokens once); it stops working when the user is
// disabled or their role changes. A token made for no user is a service identity of its own.
import "server-only";
import { createHash, randomBytes } from "node:crypto";
import type { Actor } from "../auth/actor.ts";
import { NotFoundError, ValidationError } from "../auth/errors.ts";
import { roleSchema } from "../auth/roles.ts";
import type { AppContext } from "../context.ts";
import { createTokenRow, listTokenRows, revokeTokenRow, tokenById, tokenWithUser, touchToken, userById } from "../db/accounts.ts";
import { appendAudit } from "../db/audit.ts";
import { type Db, transaction } from "../db/client.ts";
import { type TokenView, toTokenDto } from "../dto.ts";
import { parseOr400 } from "../validation.ts";
import { accessChanged, tokenActorId } from "../auth/revocation.ts";
import { authorize } from "./access.ts";
import { newTokenSchema, storedGroups } from "./schemas.ts";

type Ctx = Pick<AppContext, "db">;

const hash = (token: string) => createHash("sha256").update(token).digest("hex");

export async function createToken(ctx: Ctx, actor: Actor | null, { body }: { body: unknown }) {
  const { db } = ctx;
  const admin = authorize(actor, "users:manage");
  const input = parseOr400(newTokenSchema, body);
  if (input.userId) {
    const user = await userById(db, input.userId);
    if (!user || user.disabled) throw new ValidationError("userId", "No such active user");
    if (user.role !== input.role) throw new ValidationError("role", `A token acts as its user: ${user.email} is ${user.role}`);
  }
  const token = `afk_${randomBytes(24).toString("base64url")}`;
  const row = await transaction(db, async (tx) => {
    const row = await createTokenRow(tx, {
      name: input.name,
      role: input.role,
      userId: input.userId ?? null,
      tokenHash: hash(token),
      prefix: token.slice(0, 8),
      createdById: admin.id,
    });
    await appendAudit(tx, {
      actor: admin,
      action: "token.create",
      targetType: "token",
      targetId: row.id,
      data: { name: row.name, role: row.role, user_id: row.userId },
    });
    return row;
  });
  return { ...toTokenDto(row), token };
}

export async function listTokens(ctx: Ctx, actor: Actor | null): Promise<TokenView[]> {
  authorize(actor, "users:manage");
  return (await listTokenRows(ctx.db)).map(toTokenDto);
}

export async function revokeToken(ctx: Pick<AppContext, "db" | "live">, actor: Actor | null, { tokenId: id }: { tokenId: string }) {
  const { db } = ctx;
  const admin = authorize(actor, "users:manage");
  const existing = await tokenById(db, id);
  if (!existing) throw new NotFoundError("No such token");
  const revoked = await transaction(db, async (tx) => {
    const row = await revokeTokenRow(tx, id, existing.revokedAt ?? new Date());
    await appendAudit(tx, { actor: admin, action: "token.revoke", targetType: "token", targetId: id, data: { name: row.name } });
    return toTokenDto(row);
  });
  // Committed: streams opened with this token, on every instance, end now (lib/auth/revocation.ts).
  accessChanged(ctx.live, tokenActorId(existing));
  return revoked;
}

// The actor a bearer token stands for, or null when it is unknown or revoked (lib/auth/request.ts asks).
export async function actorFromToken(db: Db, token: string): Promise<Actor | null> {
  const row = await tokenWithUser(db, hash(token));
  if (!row || row.revokedAt) return null;
  const role = roleSchema.safeParse(row.role);
  if (!role.success) return null;
  let actor: Actor = { id: `token:${row.id}`, email: `token:${row.name}`, name: row.name, role: role.data };
  if (row.userId) {
    if (!row.user || row.user.disabled || row.user.role !== row.role) return null;
    actor = { id: row.user.id, email: row.user.email, name: row.user.name, role: role.data, groups: storedGroups(row.user.groups) };
  }
  // A write per request would serialize every API call on SQLite's write lock: a minute is precise enough.
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) void touchToken(db, row.id).catch(() => undefined);
  return actor;
}
