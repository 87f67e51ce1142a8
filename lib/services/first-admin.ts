// The first admin of a new deployment (`afk users create --role admin` on the database, README "Deploy"):
// the one user created with no one signed in, and only while the database has no active admin. After that
// an admin adds people (lib/services/users.ts). Never a default password: the operator gives one.
import "server-only";
import { ConflictError, ValidationError } from "../auth/errors.ts";
import { hashPassword } from "../auth/password.ts";
import type { AppContext } from "../context.ts";
import { createUserRow, listUserRows } from "../db/accounts.ts";
import { appendAudit } from "../db/audit.ts";
import { transaction } from "../db/client.ts";
import { type UserDto, toUserDto } from "../dto.ts";
import { parseOr400 } from "../validation.ts";
import { newUserSchema } from "./schemas.ts";

type Ctx = Pick<AppContext, "db">;

const hasActiveAdmin = async (db: AppContext["db"]) => (await listUserRows(db)).some((u) => u.role === "admin" && !u.disabled);

export const NO_FIRST_ADMIN = "The database has an admin already: an admin adds users (afk users create --as <admin email>, or Users)";

export async function createFirstAdmin(ctx: Ctx, { body }: { body: unknown }): Promise<UserDto> {
  const data = parseOr400(newUserSchema, body);
  if (data.role !== "admin") throw new ValidationError("role", "The first user is an admin (--role admin)");
  if (await hasActiveAdmin(ctx.db)) throw new ConflictError(NO_FIRST_ADMIN);
  const passwordHash = await hashPassword(data.password);
  return transaction(ctx.db, async (tx) => {
    // Checked again inside the write: two operators at once make one first admin.
    if (await hasActiveAdmin(tx)) throw new ConflictError(NO_FIRST_ADMIN);
    const user = await createUserRow(tx, { email: data.email, name: data.name, role: "admin", groups: "[]", passwordHash });
    // Nobody signed in did this: the audit entry has no actor and says how the user came to be.
    await appendAudit(tx, {
      actor: null,
      action: "user.create",
      targetType: "user",
      targetId: user.id,
      data: { email: user.email, role: user.role, groups: [], first_admin: true },
    });
    return toUserDto(user);
  });
}
