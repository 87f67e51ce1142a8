import "server-only";
import { type Db, transaction } from "../db/client.ts";
import { createUserRow, listUserRows, updateUserRow, userByEmail, userById } from "../db/accounts.ts";
import { type Actor, requirePermission } from "../auth/actor.ts";
import { ConflictError, NotFoundError, ValidationError } from "../auth/errors.ts";
import { hashPassword } from "../auth/password.ts";
import { appendAudit } from "../db/audit.ts";
import { parseOr400 } from "../validation.ts";
import { newUserSchema, storedGroups, userPatchSchema } from "./schemas.ts";
import { type UserDto, toUserDto } from "../dto.ts";

export async function listUsers(db: Db, actor: Actor | null): Promise<UserDto[]> {
  requirePermission(actor, "users:manage");
  return (await listUserRows(db)).map(toUserDto);
}

export async function createUser(db: Db, actor: Actor | null, input: unknown): Promise<UserDto> {
  const admin = requirePermission(actor, "users:manage");
  const data = parseOr400(newUserSchema, input);
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

export async function updateUser(db: Db, actor: Actor | null, userId: string, input: unknown): Promise<UserDto> {
  const admin = requirePermission(actor, "users:manage");
  const patch = parseOr400(userPatchSchema, input);
  const before = await userById(db, userId);
  if (!before) throw new NotFoundError("No such user");
  if (before.id === admin.id && (patch.disabled || (patch.role && patch.role !== "admin"))) {
    throw new ValidationError(patch.disabled ? "disabled" : "role", "You cannot disable or demote yourself");
  }
  return transaction(db, async (tx) => {
    const user = await updateUserRow(tx, userId, {
      role: patch.role,
      disabled: patch.disabled,
      groups: patch.groups !== undefined ? JSON.stringify(patch.groups) : undefined,
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
        before: { role: before.role, disabled: before.disabled, groups: storedGroups(before.groups) },
        after: { role: user.role, disabled: user.disabled, groups: storedGroups(user.groups) },
      },
    });
    return toUserDto(user);
  });
}
