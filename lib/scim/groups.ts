// SCIM Groups (RFC 7644 §3): the IdP's groups and their members. A group's displayName is looked up in
// AFK_OIDC_GROUP_MAP exactly as an SSO groups claim is (lib/auth/sso.ts admit), so a membership change
// reaches routing and roles without a sign-in: each member whose groups changed gets the role and routing
// groups their groups now grant, is suspended when none admits them (as a refused sign-in does), and their
// open streams are told. While only the default role admits someone, an admin's setting stands.
import "server-only";
import { accessChanged } from "../auth/revocation.ts";
import { admit } from "../auth/sso.ts";
import { disabledByIdp, restoreUser, suspendUser } from "../auth/suspension.ts";
import type { AppContext } from "../context.ts";
import { updateUserRow, userById } from "../db/accounts.ts";
import { appendAudit } from "../db/audit.ts";
import { transaction } from "../db/client.ts";
import {
  type ScimGroupRow,
  createScimGroupRow,
  deleteScimGroupRow,
  existingUserIds,
  listScimGroups,
  membersOf,
  scimGroupById,
  scimGroupByName,
  scimGroupsOfUser,
  updateScimGroupIfUnchanged,
} from "../db/scim.ts";
import { env } from "../env.ts";
import { storedGroups } from "../auth/groups.ts";
import type { ScimCaller } from "./auth.ts";
import {
  type PatchOp,
  SCHEMA,
  ScimError,
  listResponse,
  memberFilterOf,
  memberIdsOf,
  pageOf,
  parseEqFilter,
  parseScim,
  patchSchema,
  scimGroupSchema,
} from "./protocol.ts";

type Ctx = Pick<AppContext, "db" | "live">;

function toScimGroup(g: ScimGroupRow, base: string, withMembers = true) {
  return {
    schemas: [SCHEMA.group],
    id: g.id,
    displayName: g.displayName,
    ...(g.externalId ? { externalId: g.externalId } : {}),
    ...(withMembers ? { members: membersOf(g.members).map((id) => ({ value: id, $ref: `${base}/Users/${id}` })) } : {}),
    meta: {
      resourceType: "Group",
      created: g.createdAt.toISOString(),
      lastModified: g.updatedAt.toISOString(),
      location: `${base}/Groups/${g.id}`,
    },
  };
}

// Entra asks for groups without their members (excludedAttributes=members) before it patches them.
const withMembers = (params: URLSearchParams) => !/(^|,)\s*members\s*(,|$)/i.test(params.get("excludedAttributes") ?? "");

export async function listGroupsScim(ctx: Ctx, params: URLSearchParams, base: string) {
  const f = parseEqFilter(params.get("filter"), ["displayName", "externalId", "id"]);
  const { skip, take, startIndex } = pageOf(params);
  const { rows, total } = await listScimGroups(ctx.db, f ? { [f.attr]: f.value } : {}, skip, take);
  return listResponse(
    rows.map((g) => toScimGroup(g, base, withMembers(params))),
    total,
    startIndex,
  );
}

async function found(ctx: Pick<AppContext, "db">, id: string): Promise<ScimGroupRow> {
  const g = await scimGroupById(ctx.db, id);
  if (!g) throw new ScimError(404, `No group ${id}`);
  return g;
}

export async function getGroupScim(ctx: Ctx, id: string, params: URLSearchParams, base: string) {
  return toScimGroup(await found(ctx, id), base, withMembers(params));
}

async function knownMembers(ctx: Pick<AppContext, "db">, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  const known = await existingUserIds(ctx.db, unique);
  const unknown = unique.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new ScimError(400, `No user ${unknown.slice(0, 5).join(", ")}: members are ids of this console's Users`, "invalidValue");
  return unique;
}

export async function createGroupScim(ctx: Ctx, caller: ScimCaller, body: unknown, base: string) {
  const input = parseScim(scimGroupSchema, body);
  if (await scimGroupByName(ctx.db, input.displayName)) throw new ScimError(409, `A group named ${input.displayName} exists`, "uniqueness");
  const members = await knownMembers(
    ctx,
    (input.members ?? []).map((m) => m.value),
  );
  const row = await transaction(ctx.db, async (tx) => {
    const g = await createScimGroupRow(tx, { displayName: input.displayName, externalId: input.externalId ?? null, members });
    await appendAudit(tx, {
      actor: caller.audit,
      action: "scim.group.create",
      targetType: "scim_group",
      targetId: g.id,
      data: { display_name: g.displayName, members },
    });
    return g;
  });
  await applyGroupsTo(ctx, caller, members);
  return toScimGroup(row, base);
}

type Next = { displayName: string; externalId: string | null; members: string[] };

/** Reads the group, computes its next state and writes it unless someone wrote it meanwhile (then again). */
async function change(ctx: Ctx, caller: ScimCaller, id: string, next: (g: ScimGroupRow) => Promise<Next>, base: string) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const g = await found(ctx, id);
    const n = await next(g);
    if (n.displayName !== g.displayName) {
      const other = await scimGroupByName(ctx.db, n.displayName);
      if (other && other.id !== g.id) throw new ScimError(409, `A group named ${n.displayName} exists`, "uniqueness");
    }
    const before = membersOf(g.members);
    const added = n.members.filter((m) => !before.includes(m));
    const removed = before.filter((m) => !n.members.includes(m));
    const renamed = n.displayName !== g.displayName;
    const wrote = await transaction(ctx.db, async (tx) => {
      if (!(await updateScimGroupIfUnchanged(tx, g, n))) return false;
      await appendAudit(tx, {
        actor: caller.audit,
        action: "scim.group.update",
        targetType: "scim_group",
        targetId: g.id,
        data: { display_name: n.displayName, ...(renamed ? { was: g.displayName } : {}), added, removed },
      });
      return true;
    });
    if (!wrote) continue;
    // A renamed group may map to something else: every member's access is asked again.
    await applyGroupsTo(ctx, caller, renamed ? [...new Set([...before, ...n.members])] : [...added, ...removed]);
    return toScimGroup(await found(ctx, id), base);
  }
  throw new ScimError(409, "The group kept changing while this request applied; try again");
}

export async function replaceGroupScim(ctx: Ctx, caller: ScimCaller, id: string, body: unknown, base: string) {
  const input = parseScim(scimGroupSchema, body);
  const members = await knownMembers(
    ctx,
    (input.members ?? []).map((m) => m.value),
  );
  return change(ctx, caller, id, async () => ({ displayName: input.displayName, externalId: input.externalId ?? null, members }), base);
}

export async function patchGroupScim(ctx: Ctx, caller: ScimCaller, id: string, body: unknown, base: string) {
  const ops = parseScim(patchSchema, body).Operations;
  return change(
    ctx,
    caller,
    id,
    async (g) => {
      const n: Next = { displayName: g.displayName, externalId: g.externalId, members: membersOf(g.members) };
      for (const [i, op] of ops.entries()) await patchGroupOp(ctx, n, op, i);
      return n;
    },
    base,
  );
}

/** One PATCH operation, in the shapes Okta and Entra send (RFC 7644 §3.5.2). */
async function patchGroupOp(ctx: Ctx, n: Next, op: PatchOp, i: number) {
  const path = op.path?.trim();
  const bad = (message: string, type: "invalidValue" | "invalidPath" | "noTarget" = "invalidValue") =>
    new ScimError(400, `Operations.${i}: ${message}`, type);
  const name = (v: unknown) => {
    if (typeof v !== "string" || v.trim() === "" || v.length > 300) throw bad("displayName must be a non-empty string");
    return v.trim();
  };
  if (!path) {
    if (op.op === "remove") throw bad("remove needs a path", "noTarget");
    if (!op.value || typeof op.value !== "object" || Array.isArray(op.value))
      throw bad("without a path, value must be an object of attributes");
    const v = op.value as Record<string, unknown>;
    if (v.displayName !== undefined) n.displayName = name(v.displayName);
    if (v.externalId !== undefined) n.externalId = v.externalId === null ? null : String(v.externalId).slice(0, 200);
    if (v.members !== undefined) {
      const ids = await knownMembers(ctx, memberIdsOf(v.members));
      n.members = op.op === "replace" ? ids : [...new Set([...n.members, ...ids])];
    }
    return;
  }
  const lower = path.toLowerCase();
  if (lower === "displayname") {
    if (op.op === "remove") throw bad("displayName cannot be removed", "invalidPath");
    n.displayName = name(op.value);
  } else if (lower === "externalid") n.externalId = op.op === "remove" ? null : String(op.value ?? "").slice(0, 200) || null;
  else if (lower === "members") {
    if (op.op === "remove") {
      // Entra: remove with a value lists whom; without one, everyone goes.
      const ids = op.value === undefined ? n.members : memberIdsOf(op.value);
      n.members = n.members.filter((m) => !ids.includes(m));
    } else {
      const ids = await knownMembers(ctx, memberIdsOf(op.value));
      n.members = op.op === "replace" ? ids : [...new Set([...n.members, ...ids])];
    }
  } else {
    const member = memberFilterOf(path);
    if (member === null) throw bad(`unsupported path ${path} (displayName, externalId, members, members[value eq "…"])`, "invalidPath");
    if (op.op !== "remove") throw bad(`${path} can only be removed`, "invalidPath");
    n.members = n.members.filter((m) => m !== member);
  }
}

export async function deleteGroupScim(ctx: Ctx, caller: ScimCaller, id: string) {
  const g = await found(ctx, id);
  await transaction(ctx.db, async (tx) => {
    await deleteScimGroupRow(tx, g.id);
    await appendAudit(tx, {
      actor: caller.audit,
      action: "scim.group.delete",
      targetType: "scim_group",
      targetId: g.id,
      data: { display_name: g.displayName, members: membersOf(g.members) },
    });
  });
  await applyGroupsTo(ctx, caller, membersOf(g.members));
}

/**
 * Each user's role and routing groups as their SCIM groups now grant them. A user an admin disabled, or
 * the IdP deactivated or deleted, is left as they are (their groups apply when they come back).
 */
export async function applyGroupsTo(ctx: Ctx, caller: ScimCaller, userIds: string[]): Promise<void> {
  const sso = env().sso;
  for (const id of new Set(userIds)) {
    const user = await userById(ctx.db, id);
    if (!user || (user.disabled && user.disabledReason !== "idp")) continue;
    const names = (await scimGroupsOfUser(ctx.db, id)).map((g) => g.displayName);
    const admission = admit(names, sso?.groupMap ?? {}, sso?.defaultRole);
    const audit = { via: "scim", idp_groups: names };
    if (!admission.ok) {
      await suspendUser(ctx, user, "idp", caller.audit, audit);
      continue;
    }
    let changed = disabledByIdp(user) && (await restoreUser(ctx, user, caller.audit, audit));
    const before = { role: user.role, groups: storedGroups(user.groups) };
    if (
      admission.matched.length > 0 &&
      (before.role !== admission.role || JSON.stringify(before.groups) !== JSON.stringify(admission.groups))
    ) {
      await transaction(ctx.db, async (tx) => {
        await updateUserRow(tx, id, {
          role: admission.role !== before.role ? admission.role : undefined,
          groups: JSON.stringify(admission.groups),
          // As an admin's role change: the user's sessions end (a routing group change alone keeps them).
          endSessions: admission.role !== before.role,
        });
        await appendAudit(tx, {
          actor: caller.audit,
          action: "user.update",
          targetType: "user",
          targetId: id,
          data: { ...audit, before, after: { role: admission.role, groups: admission.groups } },
        });
      });
      changed = true;
    }
    if (changed) accessChanged(ctx.live, id);
  }
}
