// SCIM 2.0 provisioning through the real route handlers (app/scim/v2, a real SQLite database, the
// process's own context), with the request bodies Okta and Entra ID send (their SCIM guides): look-up by
// filter, create, update, deactivate and reactivate, delete, groups and their members reaching roles and
// routing, every change audited, malformed bodies answered as SCIM errors and never a 5xx, and a
// deactivation ending the user's open streams within seconds. Across instances on PostgreSQL:
// tests/auth/revocation.test.ts ("deprovisioned through SCIM").
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { testContext } from "../helpers/context";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { scratchDatabase, type ScratchDb } from "../helpers/scratch";

let s: ScratchDb;
let scimToken: string;
let adminToken: string;
let routes: Awaited<ReturnType<typeof loadRoutes>>;

async function loadRoutes() {
  return {
    users: await import("@/app/scim/v2/Users/route"),
    user: await import("@/app/scim/v2/Users/[id]/route"),
    groups: await import("@/app/scim/v2/Groups/route"),
    group: await import("@/app/scim/v2/Groups/[id]/route"),
    config: await import("@/app/scim/v2/ServiceProviderConfig/route"),
    types: await import("@/app/scim/v2/ResourceTypes/route"),
    schemas: await import("@/app/scim/v2/Schemas/route"),
  };
}

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
// biome-ignore lint/suspicious/noExplicitAny: SCIM bodies as the tests read them
type Json = Record<string, any>;

async function call(
  handler: unknown,
  method: string,
  url: string,
  body?: unknown,
  opts: { id?: string; token?: string | null; raw?: string } = {},
) {
  const token = opts.token === undefined ? scimToken : opts.token;
  const req = new Request(`http://localhost${url}`, {
    method,
    body: opts.raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/scim+json" },
  });
  const res = await (handler as Handler)(req, { params: Promise.resolve(opts.id ? { id: opts.id } : ({} as Record<string, string>)) });
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type"), json: (text ? JSON.parse(text) : null) as Json };
}

const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";

beforeAll(async () => {
  s = await scratchDatabase("sqlite");
  process.env.DATABASE_URL = s.url;
  Object.assign(process.env, {
    AFK_OIDC_ISSUER: "https://idp.example.com",
    AFK_OIDC_CLIENT_ID: "afk",
    AFK_OIDC_CLIENT_SECRET: "secret",
    AFK_OIDC_GROUP_MAP: JSON.stringify({
      "finance-approvers": { role: "reviewer", groups: ["finance"] },
      "console-admins": { role: "admin" },
      staff: { role: "submitter" },
    }),
  });
  (await import("@/lib/env")).resetEnv();
  routes = await loadRoutes();
  const { db } = await import("@/lib/db/client");
  const { createToken } = await import("@/lib/services/tokens");
  const admin = { id: "scim-admin", email: "admin@example.com", name: "A", role: "admin" as const };
  scimToken = (await createToken({ db: db() }, admin, { body: { name: "okta", role: "scim" } })).token;
  adminToken = (await createToken({ db: db() }, admin, { body: { name: "rest", role: "admin" } })).token;
});
afterAll(async () => {
  const { appContext } = await import("@/lib/context");
  await appContext().worker.idle();
  await s?.drop();
});

const row = (id: string) => s.db.user.findUniqueOrThrow({ where: { id } });

describe("the SCIM service", () => {
  it("answers only a SCIM token, with SCIM errors; says what it supports", async () => {
    for (const token of [null, "nope", adminToken]) {
      const r = await call(routes.users.GET, "GET", "/scim/v2/Users", undefined, { token });
      expect(r.status).toBe(401);
      expect(r.json).toMatchObject({ schemas: [ERROR], status: "401" });
      expect(r.type).toContain("application/scim+json");
    }
    // And the SCIM token is nobody anywhere else; it acts as no user.
    const { createToken } = await import("@/lib/services/tokens");
    const { actorFromToken } = await import("@/lib/auth/tokens");
    expect(await actorFromToken(s.db, scimToken)).toBeNull();
    const admin = { id: "scim-admin", email: "admin@example.com", name: "A", role: "admin" as const };
    const someone = await s.db.user.create({ data: { email: "someone@example.com", name: "S", role: "admin", passwordHash: "" } });
    await expect(createToken({ db: s.db }, admin, { body: { name: "x", role: "scim", userId: someone.id } })).rejects.toThrow(
      /A SCIM token acts as no user/,
    );
    const cfg = await call(routes.config.GET, "GET", "/scim/v2/ServiceProviderConfig");
    expect(cfg.json).toMatchObject({ patch: { supported: true }, bulk: { supported: false }, filter: { supported: true } });
    expect((await call(routes.types.GET, "GET", "/scim/v2/ResourceTypes")).json.Resources.map((r: Json) => r.endpoint)).toEqual([
      "/Users",
      "/Groups",
    ]);
    expect((await call(routes.schemas.GET, "GET", "/scim/v2/Schemas")).json.totalResults).toBe(2);
  });
});

describe("Okta's requests", () => {
  let userId: string;
  let groupId: string;

  it("looks the user up, creates them, and finds them by userName", async () => {
    const none = await call(
      routes.users.GET,
      "GET",
      `/scim/v2/Users?filter=${encodeURIComponent('userName eq "test.user@okta.local"')}&startIndex=1&count=100`,
    );
    expect(none.json).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: 0, Resources: [] });
    const created = await call(routes.users.POST, "POST", "/scim/v2/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: "test.user@okta.local",
      name: { givenName: "Test", familyName: "User" },
      emails: [{ primary: true, value: "test.user@okta.local", type: "work" }],
      displayName: "Test User",
      locale: "en-US",
      externalId: "00ujl29u0le5T6Aj10h7",
      groups: [],
      password: "1mz050nq",
      active: true,
    });
    expect(created.status).toBe(201);
    userId = created.json.id;
    expect(created.json).toMatchObject({
      userName: "test.user@okta.local",
      externalId: "00ujl29u0le5T6Aj10h7",
      displayName: "Test User",
      active: true,
    });
    // No mapped group yet and no default role: provisioned, but nothing admits them here yet.
    expect(await row(userId)).toMatchObject({ email: "test.user@okta.local", passwordHash: "", disabled: true, disabledReason: "idp" });
    const found = await call(routes.users.GET, "GET", `/scim/v2/Users?filter=${encodeURIComponent('userName eq "Test.User@okta.local"')}`);
    expect(found.json).toMatchObject({ totalResults: 1, Resources: [{ id: userId }] });
    const again = await call(routes.users.POST, "POST", "/scim/v2/Users", { userName: "test.user@okta.local" });
    expect(again).toMatchObject({ status: 409, json: { scimType: "uniqueness", status: "409" } });
  });

  it("creates a group and adds the user: the group map gives them their role and routing groups", async () => {
    const g = await call(routes.groups.POST, "POST", "/scim/v2/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: "finance-approvers",
      members: [],
    });
    expect(g.status).toBe(201);
    groupId = g.json.id;
    const add = await call(
      routes.group.PATCH,
      "PATCH",
      `/scim/v2/Groups/${groupId}`,
      { schemas: [PATCH_OP], Operations: [{ op: "add", path: "members", value: [{ value: userId, display: "test.user@okta.local" }] }] },
      { id: groupId },
    );
    expect(add.status).toBe(200);
    expect(add.json.members).toEqual([expect.objectContaining({ value: userId })]);
    expect(await row(userId)).toMatchObject({ disabled: false, disabledReason: null, role: "reviewer", groups: '["finance"]' });
    const u = await call(routes.user.GET, "GET", `/scim/v2/Users/${userId}`, undefined, { id: userId });
    expect(u.json.groups).toEqual([expect.objectContaining({ value: groupId, display: "finance-approvers" })]);
  });

  it("deactivates (replace without a path) and every token and stream of the user ends within seconds; PUT reactivates", async () => {
    const { appContext } = await import("@/lib/context");
    const { createToken } = await import("@/lib/services/tokens");
    const { actorFromToken } = await import("@/lib/auth/tokens");
    const { benchAdmin, openStream } = await import("../helpers/revocation");
    const ctx = appContext();
    const token = await createToken(ctx, benchAdmin, { body: { name: "test-user-cli", role: "reviewer", userId } });
    const req = () => new Request("http://localhost/api/events", { headers: { authorization: `Bearer ${token.token}` } });
    const streams = [await openStream(ctx, req(), { inbox: "1" }), await openStream(ctx, req(), { inbox: "1" })];
    const t0 = performance.now();
    const off = await call(
      routes.user.PATCH,
      "PATCH",
      `/scim/v2/Users/${userId}`,
      { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] },
      { id: userId },
    );
    expect(off.status).toBe(200);
    expect(off.json.active).toBe(false);
    const ended = await Promise.all(
      streams.map((st) => Promise.race([st.ended, new Promise<number>((ok) => setTimeout(() => ok(Number.NaN), 10_000))])),
    );
    const lastClosedMs = Math.max(...ended) - t0;
    console.log(`SCIM active:false → last of ${streams.length} streams closed after ${lastClosedMs.toFixed(0)} ms`);
    expect(lastClosedMs).toBeLessThan(3_000);
    expect(await actorFromToken(s.db, token.token)).toBeNull();
    expect(await row(userId)).toMatchObject({ disabled: true, disabledReason: "scim" });

    const on = await call(
      routes.user.PUT,
      "PUT",
      `/scim/v2/Users/${userId}`,
      {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
        id: userId,
        userName: "test.user@okta.local",
        name: { givenName: "Another", familyName: "User" },
        emails: [{ primary: true, value: "test.user@okta.local", type: "work" }],
        active: true,
      },
      { id: userId },
    );
    expect(on.json).toMatchObject({ active: true, displayName: "Another User" });
    expect(await row(userId)).toMatchObject({ disabled: false, role: "reviewer", name: "Another User" });
    expect(await actorFromToken(s.db, token.token)).toMatchObject({ id: userId });
  });

  it("renames the group (replace without a path) and removes the member by a filter path: out of every admitted group, suspended", async () => {
    const renamed = await call(
      routes.group.PATCH,
      "PATCH",
      `/scim/v2/Groups/${groupId}`,
      { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { id: groupId, displayName: "console-admins" } }] },
      { id: groupId },
    );
    expect(renamed.json.displayName).toBe("console-admins");
    expect(await row(userId)).toMatchObject({ role: "admin", groups: "[]" });
    await call(
      routes.group.PATCH,
      "PATCH",
      `/scim/v2/Groups/${groupId}`,
      { schemas: [PATCH_OP], Operations: [{ op: "remove", path: `members[value eq "${userId}"]` }] },
      { id: groupId },
    );
    expect(await row(userId)).toMatchObject({ disabled: true, disabledReason: "idp" });
    const audit = await s.db.auditEvent.findMany({ where: { actorEmail: "token:okta" }, orderBy: { at: "asc" } });
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(["user.create", "scim.group.create", "scim.group.update", "user.update", "user.suspend", "user.restore"]),
    );
  });
});

describe("Entra ID's requests", () => {
  let userId: string;
  let groupId: string;
  const userName = "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1";

  it("creates a user whose userName is no email, finds them by it, and applies Replace operations with string values", async () => {
    const created = await call(routes.users.POST, "POST", "/scim/v2/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
      userName,
      active: true,
      emails: [{ primary: true, type: "work", value: "Test_User_fd0ea19b@testuser.com" }],
      meta: { resourceType: "User" },
      name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
      roles: [],
    });
    expect(created.status).toBe(201);
    userId = created.json.id;
    expect(await row(userId)).toMatchObject({ email: "test_user_fd0ea19b@testuser.com", name: "givenName familyName" });
    const found = await call(routes.users.GET, "GET", `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    expect(found.json.Resources.map((r: Json) => r.id)).toEqual([userId]);

    const g = await call(routes.groups.POST, "POST", "/scim/v2/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
      displayName: "staff",
      meta: { resourceType: "Group" },
    });
    groupId = g.json.id;
    const byName = await call(
      routes.groups.GET,
      "GET",
      `/scim/v2/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "staff"')}`,
    );
    expect(byName.json.Resources).toEqual([expect.not.objectContaining({ members: expect.anything() })]);
    await call(
      routes.group.PATCH,
      "PATCH",
      `/scim/v2/Groups/${groupId}`,
      { schemas: [PATCH_OP], Operations: [{ op: "Add", path: "members", value: [{ $ref: null, value: userId }] }] },
      { id: groupId },
    );
    expect(await row(userId)).toMatchObject({ disabled: false, role: "submitter" });

    const patched = await call(
      routes.user.PATCH,
      "PATCH",
      `/scim/v2/Users/${userId}`,
      {
        schemas: [PATCH_OP],
        Operations: [
          { op: "Replace", path: 'emails[type eq "work"].value', value: "updatedEmail@microsoft.com" },
          { op: "Replace", path: "name.familyName", value: "updatedFamilyName" },
          { op: "Add", path: "title", value: "Engineer" },
        ],
      },
      { id: userId },
    );
    expect(patched.status).toBe(200);
    expect(await row(userId)).toMatchObject({ email: "updatedemail@microsoft.com" });

    for (const [value, disabled] of [
      ["False", true],
      ["True", false],
    ] as const) {
      const r = await call(
        routes.user.PATCH,
        "PATCH",
        `/scim/v2/Users/${userId}`,
        { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value }] },
        { id: userId },
      );
      expect(r.json.active).toBe(!disabled);
      expect((await row(userId)).disabled).toBe(disabled);
    }
  });

  it("removes a member with Remove and a value, and deletes the user: gone for the IdP, suspended here", async () => {
    await call(
      routes.group.PATCH,
      "PATCH",
      `/scim/v2/Groups/${groupId}`,
      { schemas: [PATCH_OP], Operations: [{ op: "Remove", path: "members", value: [{ $ref: null, value: userId }] }] },
      { id: groupId },
    );
    expect(await row(userId)).toMatchObject({ disabled: true, disabledReason: "idp" });
    expect((await call(routes.user.DELETE, "DELETE", `/scim/v2/Users/${userId}`, undefined, { id: userId })).status).toBe(204);
    expect((await call(routes.user.GET, "GET", `/scim/v2/Users/${userId}`, undefined, { id: userId })).status).toBe(404);
    expect(
      (await call(routes.users.GET, "GET", `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)).json.totalResults,
    ).toBe(0);
    expect(await row(userId)).toMatchObject({ disabled: true, disabledReason: "scim-deleted" });
    expect((await call(routes.group.DELETE, "DELETE", `/scim/v2/Groups/${groupId}`, undefined, { id: groupId })).status).toBe(204);
  });
});

describe("malformed requests", () => {
  let userId: string;
  let groupId: string;
  beforeAll(async () => {
    userId = (await call(routes.users.POST, "POST", "/scim/v2/Users", { userName: "malformed@example.com" })).json.id;
    groupId = (await call(routes.groups.POST, "POST", "/scim/v2/Groups", { displayName: "malformed-group" })).json.id;
  });

  it.each([
    ["not JSON", "users", "POST", undefined, "{", 400, "invalidSyntax"],
    ["no userName", "users", "POST", { name: { givenName: "x" } }, undefined, 400, "invalidValue"],
    ["an array body", "users", "POST", [1, 2], undefined, 400, "invalidSyntax"],
    [
      "an unknown op",
      "user",
      "PATCH",
      { schemas: [PATCH_OP], Operations: [{ op: "frobnicate", path: "active", value: true }] },
      undefined,
      400,
      "invalidValue",
    ],
    ["no PatchOp schema", "user", "PATCH", { Operations: [{ op: "replace", value: { active: false } }] }, undefined, 400, "invalidValue"],
    [
      "active: maybe",
      "user",
      "PATCH",
      { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "maybe" }] },
      undefined,
      400,
      "invalidValue",
    ],
    [
      "a value that is no object",
      "user",
      "PATCH",
      { schemas: [PATCH_OP], Operations: [{ op: "replace", value: 3 }] },
      undefined,
      400,
      "invalidValue",
    ],
    [
      "an unknown member",
      "group",
      "PATCH",
      { schemas: [PATCH_OP], Operations: [{ op: "add", path: "members", value: [{ value: "nobody" }] }] },
      undefined,
      400,
      "invalidValue",
    ],
    [
      "a bad member path",
      "group",
      "PATCH",
      { schemas: [PATCH_OP], Operations: [{ op: "remove", path: "members[display eq 1]" }] },
      undefined,
      400,
      "invalidPath",
    ],
    ["a taken displayName", "groups", "POST", { displayName: "malformed-group" }, undefined, 409, "uniqueness"],
  ] as const)("%s: a SCIM error, nothing changed", async (_what, route, method, body, raw, status, scimType) => {
    const before = await s.db.auditEvent.count();
    const id = route === "user" ? userId : route === "group" ? groupId : undefined;
    const r = await call((routes[route] as Record<string, unknown>)[method], method, "/scim/v2/x", body, { id, raw });
    expect(r.status).toBe(status);
    expect(r.json).toMatchObject({ schemas: [ERROR], status: String(status), scimType });
    expect(typeof r.json.detail).toBe("string");
    expect(await s.db.auditEvent.count()).toBe(before);
  });

  it("refuses filters it does not support, and unknown ids are 404", async () => {
    const r = await call(routes.users.GET, "GET", `/scim/v2/Users?filter=${encodeURIComponent('userName co "x"')}`);
    expect(r).toMatchObject({ status: 400, json: { scimType: "invalidFilter" } });
    expect((await call(routes.users.GET, "GET", "/scim/v2/Users?count=abc")).status).toBe(400);
    expect((await call(routes.user.GET, "GET", "/scim/v2/Users/nope", undefined, { id: "nope" })).status).toBe(404);
    expect(
      (
        await call(
          routes.group.PATCH,
          "PATCH",
          "/scim/v2/Groups/nope",
          { schemas: [PATCH_OP], Operations: [{ op: "add", path: "members", value: [] }] },
          { id: "nope" },
        )
      ).status,
    ).toBe(404);
  });

  it("never answers a 5xx to any JSON body on any write", async () => {
    const writes = [
      [routes.users.POST, "POST", undefined],
      [routes.user.PUT, "PUT", userId],
      [routes.user.PATCH, "PATCH", userId],
      [routes.groups.POST, "POST", undefined],
      [routes.group.PUT, "PUT", groupId],
      [routes.group.PATCH, "PATCH", groupId],
    ] as const;
    const patchish = fc.record({
      schemas: fc.constantFrom([PATCH_OP], ["x"]),
      Operations: fc.array(
        fc.record(
          { op: fc.constantFrom("add", "Replace", "remove", "x"), path: fc.option(fc.string(), { nil: undefined }), value: fc.jsonValue() },
          { requiredKeys: ["op"] },
        ),
        { maxLength: 3 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writes), fc.oneof(fc.jsonValue(), patchish), async ([handler, method, id], body) => {
        const r = await call(handler, method, "/scim/v2/x", body, { id });
        expect(r.status, JSON.stringify(r.json)).toBeLessThan(500);
        if (r.status >= 400) expect(r.json.schemas).toEqual([ERROR]);
      }),
      { numRuns: 150 },
    );
  });
});

describe.each(providers)("SCIM groups on %s", (provider) => {
  let t: TestDb;
  let ctx: AppContext;
  const caller = { tokenId: "t", name: "idp", audit: { id: "token:t", email: "token:idp" } };
  beforeAll(async () => {
    t = await freshDatabase(provider);
    ctx = testContext(t.db);
  });
  afterAll(async () => {
    await ctx?.worker.idle();
    await t?.drop();
  });

  it("parallel PATCHes of one group's members all land (none lost), and each member gets the group's role", async () => {
    const { createUserScim } = await import("@/lib/scim/users");
    const { createGroupScim, patchGroupScim } = await import("@/lib/scim/groups");
    const base = "http://localhost/scim/v2";
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await createUserScim(ctx, caller, { userName: `p${i}@example.com` }, base)).id);
    const g = await createGroupScim(ctx, caller, { displayName: "staff" }, base);
    await Promise.all(
      ids.map((id) =>
        patchGroupScim(
          ctx,
          caller,
          g.id,
          { schemas: [PATCH_OP], Operations: [{ op: "Add", path: "members", value: [{ value: id }] }] },
          base,
        ),
      ),
    );
    const stored = await t.db.scimGroup.findUniqueOrThrow({ where: { id: g.id } });
    expect((JSON.parse(stored.members) as string[]).sort()).toEqual([...ids].sort());
    for (const id of ids)
      expect(await t.db.user.findUniqueOrThrow({ where: { id } })).toMatchObject({ disabled: false, role: "submitter" });
  });
});
