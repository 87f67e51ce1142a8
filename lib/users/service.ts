import "server-only";
import type { Db } from "../db/client.ts";
import { type Actor, requirePermission } from "../auth/actor.ts";
import { ConflictError, NotFoundError, ValidationError } from "../auth/errors.ts";
import { hashPassword } from "../auth/password.ts";
import { appendAudit } from "../audit/queries.ts";
import { parseOr400 } from "../validation.ts";
import { newUserSchema, storedGroups, userPatchSchema } from "./schemas.ts";
import { type UserDto, toUserDto } from "../dto.ts";

const publicFields = { id: true, email: true, name: true, role: true, disabled: true, groups: true, createdAt: true } as const;

export async function listUsers(db: Db, actor: Actor | null): Promise<UserDto[]> {
  requirePermission(actor, "users:manage");
  return (await db.user.findMany({ select: publicFields, orderBy: { createdAt: "asc" } })).map(toUserDto);
}

export async function createUser(db: Db, actor: Actor | null, input: unknown): Promise<UserDto> {
  const admin = requirePermission(actor, "users:manage");
  const data = parseOr400(newUserSchema, input);
  if (await db.user.findUnique({ where: { email: data.email } })) {
    throw new ConflictError(`A user with email ${data.email} already exists`);
  }
  const passwordHash = await hashPassword(data.password);
  return db.$transaction(async (tx) => {
    const user = await tx.user.create({
      data: { email: data.email, name: data.name, role: data.role, groups: JSON.stringify(data.groups ?? []), passwordHash },
      select: publicFields,
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
  const before = await db.user.findUnique({ where: { id: userId } });
  if (!before) throw new NotFoundError("No such user");
  if (before.id === admin.id && (patch.disabled || (patch.role && patch.role !== "admin"))) {
    throw new ValidationError(patch.disabled ? "disabled" : "role", "You cannot disable or demote yourself");
  }
  return db.$transaction(async (tx) => {
    const user = await tx.user.update({
      where: { id: userId },
      // A new sessionVersion ends the user's live sessions at once (not needed for groups: every request
      // reads them from this row).
      data: {
        ...(patch.role !== undefined ? { role: patch.role } : {}),
        ...(patch.disabled !== undefined ? { disabled: patch.disabled } : {}),
        ...(patch.groups !== undefined ? { groups: JSON.stringify(patch.groups) } : {}),
        ...(patch.role !== undefined || patch.disabled !== undefined ? { sessionVersion: { increment: 1 } } : {}),
      },
      select: publicFields,
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
