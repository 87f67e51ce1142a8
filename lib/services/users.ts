// People and their roles (admin only): add, list, change role, groups or disabled, each audited. A role
// change or a disable ends the user's live sessions at once.
import "server-only";
import type { Actor } from "../auth/actor.ts";
import { ConflictError, NotFoundError, ValidationError } from "../auth/errors.ts";
import { hashPassword } from "../auth/password.ts";
import type { AppContext } from "../context.ts";
import { createUserRow, listUserRows, updateUserRow, userByEmail, userById } from "../db/accounts.ts";
import { appendAudit } from "../db/audit.ts";
import { transaction } from "../db/client.ts";
import { type UserDto, toUserDto } from "../dto.ts";
import { parseOr400 } from "../validation.ts";
import { accessChanged } from "../auth/revocation.ts";
import { authorize } from "./access.ts";
import { storedGroups } from "../auth/groups.ts";
import { newUserSchema, userPatchSchema } from "./schemas.ts";

type Ctx = Pick<AppContext, "db">;
/** A change of someone's access also tells their open event streams, on every instance. */
type AccessCtx = Pick<AppContext, "db" | "live">;

export async function listUsers(ctx: Ctx, actor: Actor | null): Promise<UserDto[]> {
  authorize(actor, "users:manage");
  return (await listUserRows(ctx.db)).map(toUserDto);
}

export async function createUser(ctx: Ctx, actor: Actor | null, { body }: { body: unknown }): Promise<UserDto> {
  const { db } = ctx;
  const admin = authorize(actor, "users:manage");
  const data = parseOr400(newUserSchema, body);
  if (await userByEmail(db, data.email)) {
    throw new ConflictError(`A user with email ${data.email} already exists`);
  }
  const passwordHash = await hashPassword(data.password);
  return transaction(db, async (tx) => {
    const user = await createUserRow(tx, {
      email: data.email,
      name: data.name,
      role: data.role,
      groups: JSON.stringify(data.groups ?? []),
      passwordHash,
    });
    await appendAudit(tx, {
      actor: admin,
      action: "user.create",
      targetType: "user",
      targetId: user.id,
      data: { email: user.email, role: user.role, groups: data.groups ?? [] },
    });
    return toUserDto(user);
  });
}

export async function updateUser(
  ctx: AccessCtx,
  actor: Actor | null,
  { userId, body }: { userId: string; body: unknown },
): Promise<UserDto> {
  const { db } = ctx;
  const admin = authorize(actor, "users:manage");
  const patch = parseOr400(userPatchSchema, body);
  const before = await userById(db, userId);
  if (!before) throw new NotFoundError("No such user");
  if (before.id === admin.id && (patch.disabled || (patch.role && patch.role !== "admin"))) {
    throw new ValidationError(patch.disabled ? "disabled" : "role", "You cannot disable or demote yourself");
  }
  const updated = await transaction(db, async (tx) => {
    const user = await updateUserRow(tx, userId, {
      role: patch.role,
      disabled: patch.disabled,
      groups: patch.groups !== undefined ? JSON.stringify(patch.groups) : undefined,
      passwordKept: patch.passwordKept,
      // An admin's disable is theirs (null reason); enabling lifts any disable, the IdP's included.
      ...(patch.disabled !== undefined ? { disabledReason: null, disabledAt: patch.disabled ? new Date() : null } : {}),
      // A role or access change ends the user's live sessions (not needed for groups: every request reads
      // them from this row).
      endSessions: patch.role !== undefined || patch.disabled !== undefined,
    });
    await appendAudit(tx, {
      actor: admin,
      action: "user.update",
      targetType: "user",
      targetId: userId,
      data: {
        before: {
          role: before.role,
          disabled: before.disabled,
          groups: storedGroups(before.groups),
          ...(before.disabledReason ? { disabled_reason: before.disabledReason } : {}),
          ...(patch.passwordKept !== undefined ? { password_kept: before.passwordKept } : {}),
        },
        after: {
          role: user.role,
          disabled: user.disabled,
          groups: storedGroups(user.groups),
          ...(patch.passwordKept !== undefined ? { password_kept: user.passwordKept } : {}),
        },
      },
    });
    return toUserDto(user);
  });
  // Committed: the user's open streams check their access now (a disable or a role or group change).
  accessChanged(ctx.live, userId);
  return updated;
}
