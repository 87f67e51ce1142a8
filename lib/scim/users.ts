// SCIM Users (RFC 7644 §3): an IdP creates, updates, deactivates and deletes the people of this console.
// userName is the console's email (Okta and Entra both send the sign-in address there). Deactivating or
// deleting suspends the user exactly as a removal at the IdP does (lib/auth/suspension.ts): sessions,
// tokens, streams and a linked password end within seconds on every instance. Reactivating lifts only the
// IdP's suspension. Roles and routing groups come from SCIM groups (lib/scim/groups.ts), never from here.
import "server-only";
import { restoreUser, suspendUser } from "../auth/suspension.ts";
import type { AppContext } from "../context.ts";
import { createUserRow, updateUserRow } from "../db/accounts.ts";
import { appendAudit } from "../db/audit.ts";
import { transaction } from "../db/client.ts";
import { type ScimUserRow, anyUserByEmail, anyUserByUserName, listScimUsers, scimGroupsOfUser, scimUserById } from "../db/scim.ts";
import { env } from "../env.ts";
import { admit } from "../auth/sso.ts";
import {
  type PatchOp,
  SCHEMA,
  ScimError,
  type ScimUserInput,
  listResponse,
  pageOf,
  parseEqFilter,
  parseScim,
  patchSchema,
  scimBoolean,
  scimUserSchema,
} from "./protocol.ts";
import type { ScimCaller } from "./auth.ts";
import { applyGroupsTo } from "./groups.ts";

type Ctx = Pick<AppContext, "db" | "live">;

export async function toScimUser(ctx: Pick<AppContext, "db">, u: ScimUserRow, base: string) {
  const groups = await scimGroupsOfUser(ctx.db, u.id);
  return {
    schemas: [SCHEMA.user],
    id: u.id,
    ...(u.scimExternalId ? { externalId: u.scimExternalId } : {}),
    userName: u.scimUserName ?? u.email,
    displayName: u.name,
    name: { formatted: u.name },
    emails: [{ value: u.email, primary: true, type: "work" }],
    // What the IdP set, or an admin here: a user no mapped group admits yet is active at the IdP (they
    // still cannot sign in here until a group admits them).
    active: !u.disabled || u.disabledReason === "idp",
    groups: groups.map((g) => ({ value: g.id, display: g.displayName, $ref: `${base}/Groups/${g.id}` })),
    meta: {
      resourceType: "User",
      created: u.createdAt.toISOString(),
      lastModified: u.updatedAt.toISOString(),
      location: `${base}/Users/${u.id}`,
    },
  };
}

export async function listUsersScim(ctx: Ctx, params: URLSearchParams, base: string) {
  const f = parseEqFilter(params.get("filter"), ["userName", "externalId", "id", "emails.value"]);
  const v = f?.value.trim() ?? "";
  const match =
    f === null
      ? {}
      : f.attr === "externalId"
        ? { scimExternalId: v }
        : f.attr === "id"
          ? { id: v }
          : f.attr === "userName"
            ? { userName: v.toLowerCase() }
            : { email: v.toLowerCase() };
  const { skip, take, startIndex } = pageOf(params);
  const { rows, total } = await listScimUsers(ctx.db, match, skip, take);
  return listResponse(await Promise.all(rows.map((r) => toScimUser(ctx, r, base))), total, startIndex);
}

export async function getUserScim(ctx: Ctx, id: string, base: string) {
  return toScimUser(ctx, await found(ctx, id), base);
}

async function found(ctx: Pick<AppContext, "db">, id: string): Promise<ScimUserRow> {
  const u = await scimUserById(ctx.db, id);
  if (!u) throw new ScimError(404, `No user ${id}`);
  return u;
}

const userNameOf = (input: ScimUserInput) => input.userName.trim().toLowerCase();
// The address: the primary (or first) email when there is one, else the userName (Okta's is the email).
const emailOf = (input: ScimUserInput) => {
  const emails = input.emails ?? [];
  const e = (emails.find((m) => m.primary === true) ?? emails[0])?.value.trim().toLowerCase();
  return e?.includes("@") ? e : userNameOf(input);
};
const displayNameOf = (input: {
  userName: string;
  displayName?: string | null;
  name?: { formatted?: string; givenName?: string; familyName?: string };
}) =>
  (
    input.displayName?.trim() ||
    input.name?.formatted?.trim() ||
    [input.name?.givenName, input.name?.familyName].filter(Boolean).join(" ").trim() ||
    input.userName
  ).slice(0, 100);

export async function createUserScim(ctx: Ctx, caller: ScimCaller, body: unknown, base: string) {
  const input = parseScim(scimUserSchema, body);
  const email = emailOf(input);
  const userName = userNameOf(input);
  const existing = (await anyUserByUserName(ctx.db, userName)) ?? (await anyUserByEmail(ctx.db, email));
  if (existing && existing.scimUserName !== null && existing.disabledReason !== "scim-deleted")
    throw new ScimError(409, `A user with userName ${userName} exists`, "uniqueness");
  if (existing) {
    // A person of this console the IdP had not provisioned (same email), or one it deleted and provisions
    // again: the same user, from now on as the resource says.
    await transaction(ctx.db, async (tx) => {
      await updateUserRow(tx, existing.id, { scimUserName: userName, endSessions: false });
      await appendAudit(tx, {
        actor: caller.audit,
        action: "user.update",
        targetType: "user",
        targetId: existing.id,
        data: { via: "scim", linked: true, user_name: userName },
      });
    });
    if (existing.disabledReason === "scim-deleted") await restoreUser(ctx, existing, caller.audit, { via: "scim" });
    return replaceUserScim(ctx, caller, existing.id, body, base);
  }
  // No group yet: admitted as the default role, or provisioned suspended until a mapped group admits them.
  const sso = env().sso;
  const admission = admit([], sso?.groupMap ?? {}, sso?.defaultRole);
  const active = input.active ?? true;
  const created = await transaction(ctx.db, async (tx) => {
    const row = await createUserRow(tx, {
      email,
      name: displayNameOf(input),
      role: admission.ok ? admission.role : "submitter",
      groups: "[]",
      passwordHash: "",
      scimExternalId: input.externalId ?? null,
      scimUserName: userName,
      ...(!active
        ? { disabled: true, disabledReason: "scim", disabledAt: new Date() }
        : !admission.ok
          ? { disabled: true, disabledReason: "idp", disabledAt: new Date() }
          : {}),
    });
    await appendAudit(tx, {
      actor: caller.audit,
      action: "user.create",
      targetType: "user",
      targetId: row.id,
      data: {
        via: "scim",
        email,
        user_name: userName,
        role: row.role,
        active,
        admitted: admission.ok,
        external_id: input.externalId ?? null,
      },
    });
    return row;
  });
  return toScimUser(ctx, await found(ctx, created.id), base);
}

/** What a PUT or PATCH leaves of the user's attributes this console keeps. */
type Attrs = { userName: string; email: string; name: string; externalId: string | null; active: boolean };

async function apply(ctx: Ctx, caller: ScimCaller, before: ScimUserRow, next: Attrs, base: string) {
  const changed: Record<string, unknown> = {};
  if (next.email !== before.email) {
    const other = await anyUserByEmail(ctx.db, next.email);
    if (other && other.id !== before.id) throw new ScimError(409, `A user with userName ${next.email} exists`, "uniqueness");
    changed.email = next.email;
  }
  if (next.userName !== (before.scimUserName ?? before.email)) {
    const other = await anyUserByUserName(ctx.db, next.userName);
    if (other && other.id !== before.id) throw new ScimError(409, `A user with userName ${next.userName} exists`, "uniqueness");
    changed.user_name = next.userName;
  }
  if (next.name !== before.name) changed.name = next.name;
  if (next.externalId !== before.scimExternalId) changed.external_id = next.externalId;
  if (Object.keys(changed).length > 0) {
    await transaction(ctx.db, async (tx) => {
      await updateUserRow(tx, before.id, {
        email: next.email,
        name: next.name,
        scimExternalId: next.externalId,
        scimUserName: next.userName,
        endSessions: false,
      });
      await appendAudit(tx, {
        actor: caller.audit,
        action: "user.update",
        targetType: "user",
        targetId: before.id,
        data: { via: "scim", ...changed },
      });
    });
  }
  const row = await found(ctx, before.id);
  if (!next.active) await suspendUser(ctx, row, "scim", caller.audit, { via: "scim" });
  else if (row.disabledReason === "scim" && (await restoreUser(ctx, row, caller.audit, { via: "scim" }))) {
    // Reactivated: what their groups say applies again (they may have been moved meanwhile).
    await applyGroupsTo(ctx, caller, [row.id]);
  }
  return toScimUser(ctx, await found(ctx, before.id), base);
}

export async function replaceUserScim(ctx: Ctx, caller: ScimCaller, id: string, body: unknown, base: string) {
  const before = await found(ctx, id);
  const input = parseScim(scimUserSchema, body);
  const next = { userName: userNameOf(input), email: emailOf(input), name: displayNameOf(input), externalId: input.externalId ?? null };
  return apply(ctx, caller, before, { ...next, active: input.active ?? true }, base);
}

export async function patchUserScim(ctx: Ctx, caller: ScimCaller, id: string, body: unknown, base: string) {
  const before = await found(ctx, id);
  const ops = parseScim(patchSchema, body).Operations;
  const next: Attrs = {
    userName: before.scimUserName ?? before.email,
    email: before.email,
    name: before.name,
    externalId: before.scimExternalId,
    active: !before.disabled || before.disabledReason === "idp",
  };
  const names: { givenName?: string; familyName?: string } = {};
  for (const [i, op] of ops.entries()) patchUserOp(next, names, op, i);
  if (names.givenName !== undefined || names.familyName !== undefined) {
    next.name = [names.givenName, names.familyName].filter(Boolean).join(" ").trim().slice(0, 100) || next.name;
  }
  return apply(ctx, caller, before, next, base);
}

/** One PATCH operation on the attributes kept here; others (title, addresses…) are accepted and ignored. */
function patchUserOp(next: Attrs, names: { givenName?: string; familyName?: string }, op: PatchOp, i: number) {
  const set = (path: string, value: unknown) => {
    const p = path.toLowerCase().replace(`${SCHEMA.user.toLowerCase()}:`, "");
    const str = () => {
      if (typeof value !== "string" || value.trim() === "")
        throw new ScimError(400, `Operations.${i}: ${path} must be a non-empty string`, "invalidValue");
      return value.trim();
    };
    if (p === "active") {
      if (op.op === "remove") throw new ScimError(400, `Operations.${i}: active cannot be removed`, "mutability");
      const b = scimBoolean.safeParse(value);
      if (!b.success) throw new ScimError(400, `Operations.${i}: active must be true or false`, "invalidValue");
      next.active = b.data;
    } else if (p === "username") next.userName = str().toLowerCase().slice(0, 200);
    else if (p === 'emails[type eq "work"].value' || p === "emails[primary eq true].value") next.email = str().toLowerCase().slice(0, 200);
    else if (p === "emails" && op.op !== "remove") {
      const list = Array.isArray(value) ? value : [value];
      const e = list.find((m) => m && typeof m === "object" && (m as { primary?: unknown }).primary !== false) as
        | { value?: unknown }
        | undefined;
      if (typeof e?.value === "string" && e.value.includes("@")) next.email = e.value.trim().toLowerCase().slice(0, 200);
    } else if (p === "displayname" || p === "name.formatted") next.name = str().slice(0, 100);
    else if (p === "name.givenname") names.givenName = op.op === "remove" ? "" : str();
    else if (p === "name.familyname") names.familyName = op.op === "remove" ? "" : str();
    else if (p === "externalid") next.externalId = op.op === "remove" ? null : str().slice(0, 200);
    else if (p === "name" && value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) set(`name.${k}`, v);
    }
  };
  if (op.path) return set(op.path, op.value);
  // No path: the value is an object of attributes (Okta: {"active": false}).
  if (!op.value || typeof op.value !== "object" || Array.isArray(op.value))
    throw new ScimError(400, `Operations.${i}: without a path, value must be an object of attributes`, "invalidValue");
  for (const [k, v] of Object.entries(op.value)) set(k, v);
}

export async function deleteUserScim(ctx: Ctx, caller: ScimCaller, id: string) {
  const u = await found(ctx, id);
  await suspendUser(ctx, u, "scim-deleted", caller.audit, { via: "scim", deleted: true });
}
