// SCIM provisioning's reads and writes: users as the IdP lists them, and the groups it provisions.
import "server-only";
import { z } from "zod";
import type { Db } from "./client.ts";

const userFields = {
  id: true,
  email: true,
  name: true,
  disabled: true,
  disabledReason: true,
  scimExternalId: true,
  scimUserName: true,
  createdAt: true,
  updatedAt: true,
} as const;
export type ScimUserRow = {
  id: string;
  email: string;
  name: string;
  disabled: boolean;
  disabledReason: string | null;
  scimExternalId: string | null;
  scimUserName: string | null;
  createdAt: Date;
  updatedAt: Date;
};

// A user deleted through SCIM is gone for the IdP (404), though kept here for the audit trail and decisions.
const visible = { OR: [{ disabledReason: null }, { disabledReason: { not: "scim-deleted" } }] };

/** A filter's match: the userName given at provisioning or, for users it never provisioned, the email. */
export type UserMatch = { userName?: string; email?: string; scimExternalId?: string; id?: string };
const whereOf = (m: UserMatch) =>
  m.userName !== undefined ? { OR: [{ scimUserName: m.userName }, { scimUserName: null, email: m.userName }] } : m;

export async function listScimUsers(db: Db, match: UserMatch, skip: number, take: number): Promise<{ rows: ScimUserRow[]; total: number }> {
  const where = { AND: [visible, whereOf(match)] };
  const [rows, total] = await Promise.all([
    take > 0 ? db.user.findMany({ where, select: userFields, orderBy: { createdAt: "asc" }, skip, take }) : Promise.resolve([]),
    db.user.count({ where }),
  ]);
  return { rows, total };
}

export const scimUserById = (db: Db, id: string) => db.user.findFirst({ where: { AND: [visible, { id }] }, select: userFields });

/** Any user with this email, a deleted one included (a POST of their userName brings them back). */
export const anyUserByEmail = (db: Db, email: string) => db.user.findUnique({ where: { email }, select: userFields });
export const anyUserByUserName = (db: Db, userName: string) =>
  db.user.findUnique({ where: { scimUserName: userName }, select: userFields });

// ---- Groups ----

const membersSchema = z.array(z.string()).catch([]);
export const membersOf = (stored: string): string[] => membersSchema.parse(safeJson(stored));
function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return [];
  }
}

export type ScimGroupRow = {
  id: string;
  displayName: string;
  externalId: string | null;
  members: string;
  createdAt: Date;
  updatedAt: Date;
};

export async function listScimGroups(
  db: Db,
  match: { displayName?: string; externalId?: string; id?: string },
  skip: number,
  take: number,
) {
  const [rows, total] = await Promise.all([
    take > 0 ? db.scimGroup.findMany({ where: match, orderBy: { createdAt: "asc" }, skip, take }) : Promise.resolve([]),
    db.scimGroup.count({ where: match }),
  ]);
  return { rows, total };
}

export const scimGroupById = (db: Db, id: string) => db.scimGroup.findUnique({ where: { id } });
export const scimGroupByName = (db: Db, displayName: string) => db.scimGroup.findUnique({ where: { displayName } });

export const createScimGroupRow = (db: Db, g: { displayName: string; externalId: string | null; members: string[] }) =>
  db.scimGroup.create({ data: { displayName: g.displayName, externalId: g.externalId, members: JSON.stringify(g.members) } });

/**
 * Writes a group only if nobody changed it since it was read (its updatedAt): two PATCHes of one group's
 * members at once (an IdP sends them in parallel) must not lose one. False: read it again and retry.
 */
export async function updateScimGroupIfUnchanged(
  db: Db,
  g: ScimGroupRow,
  next: { displayName: string; externalId: string | null; members: string[] },
): Promise<boolean> {
  const r = await db.scimGroup.updateMany({
    where: { id: g.id, updatedAt: g.updatedAt },
    data: { displayName: next.displayName, externalId: next.externalId, members: JSON.stringify(next.members), updatedAt: new Date() },
  });
  return r.count === 1;
}

export const deleteScimGroupRow = (db: Db, id: string) => db.scimGroup.deleteMany({ where: { id } });

/** The display names of the groups the user is a member of (what the group map is asked about). */
export async function scimGroupsOfUser(db: Db, userId: string): Promise<{ id: string; displayName: string }[]> {
  const rows = await db.scimGroup.findMany({
    where: { members: { contains: JSON.stringify(userId) } },
    select: { id: true, displayName: true, members: true },
  });
  return rows.filter((r) => membersOf(r.members).includes(userId)).map(({ id, displayName }) => ({ id, displayName }));
}

/** The users among ids that exist (and are not deleted through SCIM). */
export async function existingUserIds(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.user.findMany({ where: { AND: [visible, { id: { in: ids } }] }, select: { id: true } });
  return new Set(rows.map((r) => r.id));
}
