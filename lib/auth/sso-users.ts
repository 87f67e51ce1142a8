// A sign-in through the IdP, applied to the user's row: the first one creates the user, every later one
// applies the IdP's current groups (role and routing groups), each change audited and, when it takes
// access away, the user's open streams told (lib/auth/revocation.ts). A user disabled here stays
// refused whatever the IdP says. The IdP account is the identity ("<issuer> <subject>"); an existing
// local user with the same email is linked only when the IdP has verified that address.
import "server-only";
import type { Db } from "../db/client.ts";
import { transaction } from "../db/client.ts";
import { createUserRow, updateUserRow, userByEmail, userBySsoSubject } from "../db/accounts.ts";
import { appendAudit } from "../db/audit.ts";
import type { LiveBus } from "../live/bus.ts";
import { storedGroups } from "./groups.ts";
import { accessChanged } from "./revocation.ts";
import { type SsoConfig, type SsoRefusal, admit, claimAt, idpGroupsOf, ssoSubjectOf } from "./sso.ts";
import { disabledByIdp, restoreUser, suspendUser } from "./suspension.ts";
import { log } from "../log.ts";

/** The verified claims of one sign-in: the ID token's, completed by the userinfo endpoint's. */
export type SsoClaims = Record<string, unknown> & { iss: string; sub: string };

export type SsoOutcome = { ok: true; userId: string } | { ok: false; refusal: SsoRefusal };

export async function signInThroughIdp(ctx: { db: Db; live: LiveBus }, cfg: SsoConfig, claims: SsoClaims): Promise<SsoOutcome> {
  const { db } = ctx;
  const subject = ssoSubjectOf(claims.iss, claims.sub);
  const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : "";
  const verified = claims.email_verified === true || claims.email_verified === "true";
  const name = [claims.name, claims.preferred_username, email].find((v): v is string => typeof v === "string" && v.trim() !== "")?.trim();
  const idpGroups = idpGroupsOf(claims, cfg.groupsClaim);
  if (claimAt(claims, cfg.groupsClaim) === undefined) warnClaimAbsent(cfg.groupsClaim, Object.keys(claims));
  const admission = admit(idpGroups, cfg.groupMap, cfg.defaultRole);

  let user = await userBySsoSubject(db, subject);
  let linking = false;
  if (!user && email) {
    const sameEmail = await userByEmail(db, email);
    if (sameEmail && (sameEmail.ssoSubject || !verified)) return refuse(db, "SsoEmailTaken", { subject, email, idpGroups });
    user = sameEmail;
    linking = !!sameEmail;
  }
  // Disabled by an admin here: refused whatever the IdP says. Suspended by the IdP: its admission lifts it.
  if (user?.disabled && !disabledByIdp(user)) return refuse(db, "SsoDisabled", { subject, email, idpGroups, userId: user.id });
  if (!admission.ok) {
    // Out of every admitted group at the IdP: suspended here, every session, token and stream included.
    if (user) await suspendUser(ctx, user, "idp", null, { via: "sso", issuer: claims.iss, idp_groups: idpGroups });
    return refuse(db, "SsoNoGroup", { subject, email, idpGroups, userId: user?.id });
  }
  const audit = { via: "sso", issuer: claims.iss, idp_groups: idpGroups };
  if (user && (await restoreUser(ctx, user, null, audit))) accessChanged(ctx.live, user.id);
  // Admitted only by the default role (the IdP sent no mapped group): an existing user keeps the role and
  // groups an admin gave them; only a mapped group from the IdP changes them.
  const applied = user && admission.matched.length === 0 ? { role: user.role, groups: storedGroups(user.groups) } : admission;
  const groups = JSON.stringify(applied.groups);

  if (!user) {
    if (!email) return refuse(db, "SsoNoEmail", { subject, email, idpGroups });
    const created = await transaction(db, async (tx) => {
      const row = await createUserRow(tx, {
        email,
        name: (name ?? email).slice(0, 100),
        role: admission.role,
        groups,
        passwordHash: "",
        ssoSubject: subject,
      });
      await appendAudit(tx, {
        actor: { id: row.id, email: row.email },
        action: "user.create",
        targetType: "user",
        targetId: row.id,
        data: { ...audit, email: row.email, role: row.role, groups: admission.groups },
      });
      return row;
    });
    return { ok: true, userId: created.id };
  }

  const before = { role: user.role, disabled: false, groups: storedGroups(user.groups) };
  const roleChanged = user.role !== applied.role;
  const groupsChanged = JSON.stringify(before.groups) !== groups;
  if (roleChanged || groupsChanged || linking) {
    const id = user.id;
    await transaction(db, async (tx) => {
      await updateUserRow(tx, id, {
        role: roleChanged ? applied.role : undefined,
        groups: groupsChanged ? groups : undefined,
        ssoSubject: linking ? subject : undefined,
        // As when an admin changes a role: the user's other sessions end (this one gets the new epoch).
        endSessions: roleChanged,
      });
      await appendAudit(tx, {
        actor: { id, email: user.email },
        action: "user.update",
        targetType: "user",
        targetId: id,
        data: {
          ...audit,
          ...(linking ? { linked: true } : {}),
          before,
          after: { ...before, role: applied.role, groups: applied.groups },
        },
      });
    });
    if (roleChanged || groupsChanged) accessChanged(ctx.live, id);
  }
  return { ok: true, userId: user.id };
}

async function refuse(
  db: Db,
  refusal: SsoRefusal,
  who: { subject: string; email: string; idpGroups: string[]; userId?: string },
): Promise<SsoOutcome> {
  await appendAudit(db, {
    // Nobody acted: the IdP's answer was refused. The entry names the IdP account and why.
    actor: null,
    action: "user.sso_refused",
    targetType: who.userId ? "user" : "sso",
    targetId: who.userId ?? who.subject,
    data: { reason: refusal, email: who.email || null, idp_groups: who.idpGroups },
  });
  return { ok: false, refusal };
}

// Once per process (per configured path): a wrong AFK_OIDC_GROUPS_CLAIM refuses everyone (or gives everyone the default role),
// and the log says why at the first sign-in instead of once per person.
const warnedAbsent = new Set<string>();
function warnClaimAbsent(path: string, present: string[]) {
  if (warnedAbsent.has(path)) return;
  warnedAbsent.add(path);
  log.warn("AFK_OIDC_GROUPS_CLAIM names no claim of this ID token: nobody's groups can be read", {
    groups_claim: path,
    claims: present.slice(0, 40),
  });
}
