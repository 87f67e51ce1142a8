// Single sign-on through an OpenID Connect provider: where the IdP's groups are in its claims, and which
// of them admit a person as which role with which routing groups. Pure functions of the claims and the
// configuration (lib/env.ts parses it); lib/auth/sso-users.ts applies the result to the user's row.
import { z } from "zod";
import { groupNameSchema } from "./groups.ts";
import { ROLES, type Role, roleSchema } from "./roles.ts";

/** One IdP group's meaning here: a role, routing groups, or both. */
const grantSchema = z
  .strictObject({ role: roleSchema.optional(), groups: z.array(groupNameSchema).max(20).optional() })
  .refine((g) => g.role !== undefined || (g.groups?.length ?? 0) > 0, { message: "give a role, groups or both" });

/** IdP group name (exactly as the claim carries it) → what it grants. */
export const groupMapSchema = z.record(z.string().min(1).max(300), grantSchema);
export type GroupMap = z.infer<typeof groupMapSchema>;

export type SsoConfig = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The button says "Sign in with {name}". */
  name: string;
  scopes: string;
  /** Where the groups are: a claim name ("groups", "cognito:groups", "https://example.com/groups") or a path (claimPathKeys). */
  groupsClaim: string;
  groupMap: GroupMap;
  /** The role of someone in none of the mapped groups; undefined: they are refused. */
  defaultRole?: Role;
};

/**
 * The keys of a claim path: a dotted path ("realm_access.roles"), bracketed keys for names with dots or
 * slashes (`["https://example.com/claims"].groups`), or a JSON pointer (RFC 6901:
 * "/https:~1~1example.com~1claims/groups"). Null when the path is malformed.
 */
export function claimPathKeys(path: string): string[] | null {
  if (path.startsWith("/"))
    return path
      .slice(1)
      .split("/")
      .map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
  const keys: string[] = [];
  // A bare name runs to the next dot or bracket; a bracketed one is a JSON string (double or single quotes).
  let i = 0;
  while (i < path.length) {
    if (path[i] === "[") {
      const m = /^\[\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*\]/.exec(path.slice(i));
      if (!m) return null;
      const quoted = m[1];
      if (quoted.startsWith("'")) keys.push(quoted.slice(1, -1));
      else {
        try {
          keys.push(JSON.parse(quoted) as string);
        } catch {
          return null;
        }
      }
      i += m[0].length;
    } else {
      const m = /^[^.[\]]+/.exec(path.slice(i));
      if (!m) return null;
      keys.push(m[0]);
      i += m[0].length;
    }
    if (i < path.length) {
      if (path[i] === ".") {
        i++;
        if (i === path.length) return null;
      } else if (path[i] !== "[") return null;
    }
  }
  return keys.length > 0 ? keys : null;
}

/** The value at a claim name, or else at a path into nested claims (claimPathKeys). */
export function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let v: unknown = claims;
  // The keys of a claim path (into the IdP's claims, nothing of the runner's keys).
  for (const k of claimPathKeys(path) ?? []) {
    if (!v || typeof v !== "object" || Array.isArray(v) || !Object.hasOwn(v, k)) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v === claims ? undefined : v;
}

/** The IdP groups in the claims: an array of names, or one name as a string (some IdPs send a single group so). */
export function idpGroupsOf(claims: Record<string, unknown>, path: string): string[] {
  const v = claimAt(claims, path);
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return [...new Set(v.filter((x): x is string => typeof x === "string"))];
  return [];
}

export type Admission = { ok: true; role: Role; groups: string[]; matched: string[] } | { ok: false };

/**
 * What the IdP's groups make of a person. The role is the strongest any matched group grants, in the order
 * admin, reviewer, operator, submitter (so it does not depend on the order of the JSON); the routing groups
 * are every matched group's, together. In no mapped group: the default role without routing groups, or refused.
 */
export function admit(idpGroups: string[], map: GroupMap, defaultRole: Role | undefined): Admission {
  const matched = idpGroups.filter((g) => Object.hasOwn(map, g)).sort();
  const roles = new Set(matched.flatMap((g) => (map[g].role ? [map[g].role] : [])));
  const role = ROLES.find((r) => roles.has(r)) ?? defaultRole;
  if (!role) return { ok: false };
  const groups = [...new Set(matched.flatMap((g) => map[g].groups ?? []))].sort().slice(0, 20);
  return { ok: true, role, groups, matched };
}

/** The stored link between a user and their IdP account: issuer URLs have no spaces, subjects may. */
export const ssoSubjectOf = (issuer: string, subject: string) => `${issuer} ${subject}`;

/** Why a sign-in through the IdP was refused; the login page says it in words (app/login). */
export const SSO_REFUSALS = {
  SsoNoGroup: "Your account is in none of the groups this console admits. Ask your administrator.",
  SsoDisabled: "Your account is disabled in this console. Ask your administrator.",
  SsoNoEmail: "Your identity provider did not say your email address (the email scope and claim are needed).",
  SsoEmailTaken: "A user with your email already exists here and your identity provider has not verified that address.",
} as const;
export type SsoRefusal = keyof typeof SSO_REFUSALS;
