// The first admin of a new deployment (`afk users create --role admin` on the database, docs/operating.md "Deploy"):
// the one user created with no one signed in, and only while the database has no active admin. After that
// an admin adds people (lib/services/users.ts). Never a default password: the operator gives one.
import "server-only";
import { readFileSync } from "node:fs";
import { ConflictError, ValidationError } from "../auth/errors.ts";
import { hashPassword } from "../auth/password.ts";
import type { AppContext } from "../context.ts";
import { createUserRow, listUserRows, userByEmail } from "../db/accounts.ts";
import { appendAudit } from "../db/audit.ts";
import { db, transaction } from "../db/client.ts";
import { type UserDto, toUserDto } from "../dto.ts";
import { env } from "../env.ts";
import { failureOf } from "../failure.ts";
import { log } from "../log.ts";
import { parseOr400 } from "../validation.ts";
import { newUserSchema } from "./schemas.ts";

type Ctx = Pick<AppContext, "db">;

const hasActiveAdmin = async (db: AppContext["db"]) => (await listUserRows(db)).some((u) => u.role === "admin" && !u.disabled);

export const NO_FIRST_ADMIN = "The database has an admin already: an admin adds users (afk users create --as <admin email>, or Users)";

export async function createFirstAdmin(ctx: Ctx, { body }: { body: unknown }): Promise<UserDto> {
  const data = parseOr400(newUserSchema, body);
  if (data.role !== "admin") throw new ValidationError("role", "The first user is an admin (--role admin)");
  if (await hasActiveAdmin(ctx.db)) throw new ConflictError(NO_FIRST_ADMIN);
  if (await userByEmail(ctx.db, data.email)) throw new ConflictError(`A user with email ${data.email} already exists`);
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

/** AFK_BOOTSTRAP_ADMIN_EMAIL at a web instance's start: the first admin, with the password in the file,
 * while the database has no active admin; null when there is one (every later start, or another instance
 * made it first). An unreadable file or a refused password is a typed error naming the variable. */
export async function bootstrapFirstAdmin(ctx: Ctx, b: { email: string; passwordFile: string }): Promise<UserDto | null> {
  if (await hasActiveAdmin(ctx.db)) return null;
  let password: string;
  try {
    password = readFileSync(b.passwordFile, "utf8").replace(/\r?\n$/, "");
  } catch (e) {
    throw new ValidationError("AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE", `cannot be read: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    return await createFirstAdmin(ctx, { body: { email: b.email, name: b.email.split("@")[0], role: "admin", password } });
  } catch (e) {
    if (e instanceof ConflictError && (await hasActiveAdmin(ctx.db))) return null;
    if (e instanceof ValidationError && e.field === "password")
      throw new ValidationError("AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE", `its password: ${e.message}`);
    throw e;
  }
}

/** At a web instance's start (instrumentation.ts): the bootstrap variables' first admin, logged once. A
 * failure is logged, not fatal: the console serves on, and `afk users create` makes the admin instead. */
export async function bootstrapAtStart(): Promise<void> {
  const e = env();
  if (!e.AFK_BOOTSTRAP_ADMIN_EMAIL || !e.AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE) return;
  try {
    const user = await bootstrapFirstAdmin(
      { db: db() },
      { email: e.AFK_BOOTSTRAP_ADMIN_EMAIL, passwordFile: e.AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE },
    );
    if (user) log.info("first admin created from AFK_BOOTSTRAP_ADMIN_EMAIL", { email: user.email, user_id: user.id });
  } catch (err) {
    const f = failureOf(err);
    log.error("first admin not created from AFK_BOOTSTRAP_ADMIN_EMAIL", {
      error: f.status === 500 ? String(err) : `${f.body.field ? `${f.body.field}: ` : ""}${f.body.error}`,
    });
  }
}
