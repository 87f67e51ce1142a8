// The signed-in user as every server action and route sees it. The JWT only says who the user was when
// they signed in; the database says whether they may still act (disabled, role changed).
import type { Db } from "../db/client.ts";
import { sessionUserById, userByEmail } from "../db/accounts.ts";
import { UnauthorizedError } from "./errors.ts";
import { type Role, roleSchema } from "./roles.ts";
import { storedGroups } from "./groups.ts";

/** `groups`: the user's routing groups (absent: none). */
export type Actor = { id: string; email: string; name: string; role: Role; groups?: string[] };

/** The groups routing checks a decider against; null for admins, whom routing does not bind. */
export const routingGroupsOf = (actor: Actor): string[] | null => (actor.role === "admin" ? null : (actor.groups ?? []));

export type SessionClaims = { sub?: string; sessionVersion?: number } | null | undefined;

export async function actorFromClaims(db: Db, claims: SessionClaims): Promise<Actor | null> {
  if (!claims?.sub) return null;
  const user = await sessionUserById(db, claims.sub);
  if (!user || user.disabled || user.sessionVersion !== (claims.sessionVersion ?? 0)) return null;
  const role = roleSchema.safeParse(user.role);
  if (!role.success) return null;
  return { id: user.id, email: user.email, name: user.name, role: role.data, groups: storedGroups(user.groups) };
}

// A named user acting outside a session (the CLI on the database): the user must exist and be active;
// their role and groups apply as they do to a signed-in session.
export async function actorByEmail(db: Db, email: string): Promise<Actor> {
  const user = await userByEmail(db, email.trim().toLowerCase());
  if (!user) throw new UnauthorizedError(`No user ${email}`);
  if (user.disabled) throw new UnauthorizedError(`User ${email} is disabled`);
  const role = roleSchema.safeParse(user.role);
  if (!role.success) throw new UnauthorizedError(`User ${email} has no valid role`);
  return { id: user.id, email: user.email, name: user.name, role: role.data, groups: storedGroups(user.groups) };
}
