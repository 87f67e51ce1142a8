// API tokens: an admin creates one for a role, sees it once, and can revoke it. Only its sha256 is stored.
// A token made for a user acts as that user (same id and email in decisions and the audit log, so quorum
// and separation of duties count one person with two tokens once); it stops working when the user is
// disabled or their role changes. A token made for no user is a service identity of its own.
import "server-only";
import { randomBytes } from "node:crypto";
import type { Actor } from "../auth/actor.ts";
import { NotFoundError, ValidationError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import { createTokenRow, listTokenRows, revokeTokenRow, tokenById, userById } from "../db/accounts.ts";
import { appendAudit } from "../db/audit.ts";
import { transaction } from "../db/client.ts";
import { type TokenView, toTokenDto } from "../dto.ts";
import { parseOr400 } from "../validation.ts";
import { accessChanged, tokenActorId } from "../auth/revocation.ts";
import { authorize } from "./access.ts";
import { tokenHash } from "../auth/tokens.ts";
import { newTokenSchema } from "./schemas.ts";

type Ctx = Pick<AppContext, "db">;

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
      tokenHash: tokenHash(token),
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
