// Users, API tokens and sign-in failures. The token look-up every API call makes is one statement,
// through the driver when there is one (Prisma's engine costs more than the query itself on that path;
// see lib/db/driver.ts).
import "server-only";
import { Prisma } from "../generated/sqlite/client.ts";
import { type Db, queryRows } from "./client.ts";
import { boolOf, dateOf } from "./driver.ts";

export type TokenWithUser = {
  id: string;
  name: string;
  role: string;
  userId: string | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  user: { id: string; email: string; name: string; role: string; disabled: boolean; groups: string } | null;
};

export async function tokenWithUser(db: Db, tokenHash: string): Promise<TokenWithUser | null> {
  const [r] = await queryRows(
    db,
    Prisma.sql`SELECT t."id", t."name", t."role", t."userId", t."revokedAt", t."lastUsedAt",
      u."id" AS "uId", u."email" AS "uEmail", u."name" AS "uName", u."role" AS "uRole", u."disabled" AS "uDisabled", u."groups" AS "uGroups"
    FROM "ApiToken" t LEFT JOIN "User" u ON u."id" = t."userId" WHERE t."tokenHash" = ${tokenHash}`,
  );
  if (!r) return null;
  return {
    id: r.id as string,
    name: r.name as string,
    role: r.role as string,
    userId: (r.userId as string | null) ?? null,
    revokedAt: dateOf(r.revokedAt),
    lastUsedAt: dateOf(r.lastUsedAt),
    user: r.uId
      ? {
          id: r.uId as string,
          email: r.uEmail as string,
          name: r.uName as string,
          role: r.uRole as string,
          disabled: boolOf(r.uDisabled),
          groups: r.uGroups as string,
        }
      : null,
  };
}

export const touchToken = (db: Db, id: string) => db.apiToken.update({ where: { id }, data: { lastUsedAt: new Date() } });

// ---- Users ----

// passwordHash only so that a view can say whether there is a local password (lib/dto.ts never copies it).
const publicUserFields = {
  id: true,
  email: true,
  name: true,
  role: true,
  disabled: true,
  groups: true,
  createdAt: true,
  updatedAt: true,
  disabledReason: true,
  disabledAt: true,
  passwordKept: true,
  ssoSubject: true,
  scimExternalId: true,
  passwordHash: true,
} as const;
export type UserRow = Awaited<ReturnType<typeof listUserRows>>[number];

/** The full row (password hash and session version included): for sign-in and session checks. */
export const userById = (db: Db, id: string) => db.user.findUnique({ where: { id } });
export const userByEmail = (db: Db, email: string) => db.user.findUnique({ where: { email } });
/**
 * What a session check needs of a user, in one statement through the driver: every page and API call of a
 * signed-in browser makes it (through Prisma's engine it cost more CPU than the rest of a small page's data).
 */
export async function sessionUserById(
  db: Db,
  id: string,
): Promise<{ id: string; email: string; name: string; role: string; groups: string; disabled: boolean; sessionVersion: number } | null> {
  const [r] = await queryRows(
    db,
    Prisma.sql`SELECT "id", "email", "name", "role", "groups", "disabled", "sessionVersion" FROM "User" WHERE "id" = ${id}`,
  );
  if (!r) return null;
  return {
    id: r.id as string,
    email: r.email as string,
    name: r.name as string,
    role: r.role as string,
    groups: r.groups as string,
    disabled: boolOf(r.disabled),
    sessionVersion: Number(r.sessionVersion),
  };
}
/** The user linked to an IdP account ("<issuer> <subject>"), if any. */
export const userBySsoSubject = (db: Db, ssoSubject: string) => db.user.findUnique({ where: { ssoSubject } });

export const listUserRows = (db: Db) => db.user.findMany({ select: publicUserFields, orderBy: { createdAt: "asc" } });

// A user who signs in only through the IdP has an empty passwordHash (no password matches it).
export const createUserRow = (
  db: Db,
  u: {
    email: string;
    name: string;
    role: string;
    groups: string;
    passwordHash: string;
    ssoSubject?: string;
    scimExternalId?: string | null;
    scimUserName?: string | null;
    disabled?: boolean;
    disabledReason?: string | null;
    disabledAt?: Date | null;
  },
) => db.user.create({ data: u, select: publicUserFields });

// A new sessionVersion ends the user's live sessions at once.
export const updateUserRow = (
  db: Db,
  id: string,
  p: {
    role?: string;
    disabled?: boolean;
    groups?: string;
    ssoSubject?: string;
    endSessions: boolean;
    /** With disabled: who disabled (null: an admin) and when; lifting a disable clears both. */
    disabledReason?: string | null;
    disabledAt?: Date | null;
    passwordKept?: boolean;
    email?: string;
    name?: string;
    scimExternalId?: string | null;
    scimUserName?: string | null;
  },
) =>
  db.user.update({
    where: { id },
    data: {
      ...(p.disabledReason !== undefined ? { disabledReason: p.disabledReason } : {}),
      ...(p.disabledAt !== undefined ? { disabledAt: p.disabledAt } : {}),
      ...(p.passwordKept !== undefined ? { passwordKept: p.passwordKept } : {}),
      ...(p.email !== undefined ? { email: p.email } : {}),
      ...(p.name !== undefined ? { name: p.name } : {}),
      ...(p.scimExternalId !== undefined ? { scimExternalId: p.scimExternalId } : {}),
      ...(p.scimUserName !== undefined ? { scimUserName: p.scimUserName } : {}),
      ...(p.role !== undefined ? { role: p.role } : {}),
      ...(p.ssoSubject !== undefined ? { ssoSubject: p.ssoSubject } : {}),
      ...(p.disabled !== undefined ? { disabled: p.disabled } : {}),
      ...(p.groups !== undefined ? { groups: p.groups } : {}),
      ...(p.endSessions ? { sessionVersion: { increment: 1 } } : {}),
    },
    select: publicUserFields,
  });

/** Ends every live session of the user (sign-out everywhere). */
export const endSessions = (db: Db, userId: string) =>
  db.user.updateMany({ where: { id: userId }, data: { sessionVersion: { increment: 1 } } });

// ---- API tokens ----

const publicTokenFields = {
  id: true,
  name: true,
  role: true,
  userId: true,
  prefix: true,
  createdAt: true,
  revokedAt: true,
  lastUsedAt: true,
} as const;

export const createTokenRow = (
  db: Db,
  t: { name: string; role: string; userId: string | null; tokenHash: string; prefix: string; createdById: string },
) => db.apiToken.create({ data: t, select: publicTokenFields });

export const listTokenRows = (db: Db) => db.apiToken.findMany({ select: publicTokenFields, orderBy: { createdAt: "desc" } });

export const tokenById = (db: Db, id: string) => db.apiToken.findUnique({ where: { id } });

export const revokeTokenRow = (db: Db, id: string, at: Date) =>
  db.apiToken.update({ where: { id }, data: { revokedAt: at }, select: publicTokenFields });

// ---- Sign-in failures (lib/auth/lockout.ts) ----

/** The newest failures under key since `since`, at most `limit`. */
export const recentLoginFailures = (db: Db, key: string, since: Date, limit: number) =>
  db.loginFailure.findMany({ where: { key, at: { gte: since } }, orderBy: { at: "desc" }, take: limit, select: { at: true } });

export async function recordLoginFailures(db: Db, keys: string[], pruneBefore: Date) {
  await db.loginFailure.createMany({ data: keys.map((key) => ({ key })) });
  await db.loginFailure.deleteMany({ where: { at: { lt: pruneBefore } } });
}

export async function clearLoginFailures(db: Db, key: string) {
  await db.loginFailure.deleteMany({ where: { key } });
}
