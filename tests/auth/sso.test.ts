// Single sign-on: where the groups are in the claims, what they admit, the configuration's mistakes named,
// and a sign-in through the IdP applied to the user's row (created, updated, refused, audited) on both
// databases. The sign-in through a real IdP in a browser is e2e/sso/sso.spec.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actorFromClaims } from "@/lib/auth/actor";
import { admit, claimAt, claimPathKeys, type GroupMap, idpGroupsOf, type SsoConfig } from "@/lib/auth/sso";
import { signInThroughIdp } from "@/lib/auth/sso-users";
import { parseEnv } from "@/lib/env";
import { LiveBus, type LiveMessage } from "@/lib/live/bus";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";

const map: GroupMap = {
  "console-admins": { role: "admin" },
  "finance-approvers": { role: "reviewer", groups: ["finance"] },
  "ops-reviewers": { role: "reviewer", groups: ["ops"] },
  staff: { role: "submitter" },
  "refund-desk": { groups: ["refunds"] },
};

describe("claims and mapping", () => {
  it("finds groups inside a namespaced claim by bracketed keys or a JSON pointer; a malformed path is refused at start-up", () => {
    const claims = { "https://example.com/claims": { groups: ["ns"], "a.b": { "c/d": ["deep"] } }, plain: { groups: ["p"] } };
    expect(idpGroupsOf(claims, '["https://example.com/claims"].groups')).toEqual(["ns"]);
    expect(idpGroupsOf(claims, "['https://example.com/claims']['groups']")).toEqual(["ns"]);
    expect(idpGroupsOf(claims, '["https://example.com/claims"]["a.b"]["c/d"]')).toEqual(["deep"]);
    expect(idpGroupsOf(claims, "/https:~1~1example.com~1claims/groups")).toEqual(["ns"]);
    expect(idpGroupsOf(claims, "/https:~1~1example.com~1claims/a.b/c~1d")).toEqual(["deep"]);
    expect(idpGroupsOf(claims, 'plain["groups"]')).toEqual(["p"]);
    // Split on every dot, the namespaced claim is not found (what the old path did to everyone).
    expect(idpGroupsOf(claims, "https://example.com/claims.groups")).toEqual([]);
    expect(claimPathKeys('["unclosed"')).toBeNull();
    expect(claimPathKeys("a..b")).toBeNull();
    expect(claimPathKeys("a.")).toBeNull();
    expect(claimPathKeys('["x"]y')).toBeNull();
    const base = {
      NEXTAUTH_SECRET: "s".repeat(32),
      AFK_OIDC_ISSUER: "https://idp.example.com",
      AFK_OIDC_CLIENT_ID: "a",
      AFK_OIDC_CLIENT_SECRET: "b",
    };
    const env = { ...base, AFK_OIDC_GROUP_MAP: JSON.stringify(map) };
    expect(parseEnv({ ...env, AFK_OIDC_GROUPS_CLAIM: '["https://example.com/claims"].groups' }).sso?.groupsClaim).toBe(
      '["https://example.com/claims"].groups',
    );
    expect(() => parseEnv({ ...env, AFK_OIDC_GROUPS_CLAIM: '["https://example.com/claims".groups' })).toThrow(
      /AFK_OIDC_GROUPS_CLAIM: must be a claim name, a dotted path, bracketed keys/,
    );
  });

  it("finds groups at a claim name, a dotted path, a namespaced name, or as one string", () => {
    const claims = {
      groups: ["a", "b", "a", 3],
      realm_access: { roles: ["r1", "r2"] },
      "cognito:groups": ["c"],
      "https://example.com/groups": ["n"],
      single: "s",
      nested: { "x.y": ["no"] },
    };
    expect(idpGroupsOf(claims, "groups")).toEqual(["a", "b"]);
    expect(idpGroupsOf(claims, "realm_access.roles")).toEqual(["r1", "r2"]);
    expect(idpGroupsOf(claims, "cognito:groups")).toEqual(["c"]);
    expect(idpGroupsOf(claims, "https://example.com/groups")).toEqual(["n"]);
    expect(idpGroupsOf(claims, "single")).toEqual(["s"]);
    expect(idpGroupsOf(claims, "missing.path")).toEqual([]);
    expect(idpGroupsOf(claims, "realm_access")).toEqual([]);
    expect(claimAt(claims, "toString")).toBeUndefined();
    expect(claimAt(claims, "groups.length")).toBeUndefined();
  });

  it("gives the strongest role of the matched groups whatever their order, and every matched group's routing groups", () => {
    expect(admit(["staff", "console-admins"], map, undefined)).toEqual({
      ok: true,
      role: "admin",
      groups: [],
      matched: ["console-admins", "staff"],
    });
    expect(admit(["ops-reviewers", "finance-approvers", "staff", "everyone"], map, undefined)).toMatchObject({
      ok: true,
      role: "reviewer",
      groups: ["finance", "ops"],
    });
    // Routing groups without a role: the default role, or refused.
    expect(admit(["refund-desk"], map, undefined)).toEqual({ ok: false });
    expect(admit(["refund-desk", "staff"], map, undefined)).toMatchObject({ ok: true, role: "submitter", groups: ["refunds"] });
    expect(admit(["contractors"], map, "submitter")).toEqual({ ok: true, role: "submitter", groups: [], matched: [] });
    expect(admit([], map, undefined)).toEqual({ ok: false });
    expect(admit(["toString", "__proto__"], map, undefined)).toEqual({ ok: false });
  });
});

describe("configuration", () => {
  const base = { NEXTAUTH_SECRET: "s".repeat(32) };
  const sso = {
    ...base,
    AFK_OIDC_ISSUER: "https://idp.example.com/realms/acme",
    AFK_OIDC_CLIENT_ID: "afk",
    AFK_OIDC_CLIENT_SECRET: "secret",
    AFK_OIDC_GROUP_MAP: JSON.stringify(map),
  };
  it("reads the IdP, its claim path, the map and the default role; passwords stay on unless turned off", () => {
    const e = parseEnv({ ...sso, AFK_OIDC_GROUPS_CLAIM: "realm_access.roles", AFK_OIDC_NAME: "Acme SSO" });
    expect(e.sso).toEqual({
      issuer: "https://idp.example.com/realms/acme",
      clientId: "afk",
      clientSecret: "secret",
      name: "Acme SSO",
      scopes: "openid email profile",
      groupsClaim: "realm_access.roles",
      groupMap: map,
      defaultRole: undefined,
    });
    expect(e.AFK_PASSWORD_SIGNIN).toBe("on");
    expect(parseEnv({ ...sso, AFK_PASSWORD_SIGNIN: "off", AFK_OIDC_DEFAULT_ROLE: "submitter" }).sso?.defaultRole).toBe("submitter");
    expect(parseEnv(base).sso).toBeNull();
  });

  it.each([
    [{ AFK_OIDC_CLIENT_SECRET: undefined }, /^Invalid environment variable AFK_OIDC_CLIENT_SECRET: is needed/],
    [{ AFK_OIDC_ISSUER: "idp.example.com" }, /^Invalid environment variable AFK_OIDC_ISSUER: must be the IdP's issuer URL/],
    [{ AFK_OIDC_GROUP_MAP: "{finance:1}" }, /^Invalid environment variable AFK_OIDC_GROUP_MAP: must be JSON/],
    [{ AFK_OIDC_GROUP_MAP: '{"x":{"role":"boss"}}' }, /AFK_OIDC_GROUP_MAP: x\.role: /],
    [{ AFK_OIDC_GROUP_MAP: '{"x":{"groups":["Not A Group"]}}' }, /AFK_OIDC_GROUP_MAP: x\.groups\.0: A group name is lowercase/],
    [{ AFK_OIDC_GROUP_MAP: '{"x":{}}' }, /AFK_OIDC_GROUP_MAP: x: give a role, groups or both/],
    [{ AFK_OIDC_GROUP_MAP: "{}" }, /AFK_OIDC_GROUP_MAP: maps no IdP group and there is no AFK_OIDC_DEFAULT_ROLE/],
    [{ AFK_OIDC_SCOPES: "email profile" }, /AFK_OIDC_SCOPES: must include openid/],
    [{ AFK_OIDC_DEFAULT_ROLE: "root" }, /^Invalid environment variable AFK_OIDC_DEFAULT_ROLE/],
  ])("names the mistake in %j", (change, message) => {
    expect(() => parseEnv({ ...sso, ...change })).toThrow(message);
  });

  it("refuses to turn passwords off without an IdP, and a client without an issuer", () => {
    expect(() => parseEnv({ ...base, AFK_PASSWORD_SIGNIN: "off" })).toThrow(/AFK_PASSWORD_SIGNIN: off needs single sign-on/);
    expect(() => parseEnv({ ...base, AFK_OIDC_CLIENT_ID: "afk" })).toThrow(/AFK_OIDC_ISSUER: is needed/);
  });
});

describe.each(providers)("a sign-in through the IdP on %s", (provider) => {
  let t: TestDb;
  const live = new LiveBus();
  const notices: string[] = [];
  live.subscribe((m: LiveMessage) => {
    if (m.topic === "access") notices.push(m.actorId);
  });
  const cfg: SsoConfig = {
    issuer: "https://idp.example.com",
    clientId: "afk",
    clientSecret: "secret",
    name: "Acme",
    scopes: "openid email profile",
    groupsClaim: "groups",
    groupMap: map,
  };
  const iss = "https://idp.example.com";
  const claims = (sub: string, groups: string[], extra: Record<string, unknown> = {}) => ({
    iss,
    sub,
    email: `${sub}@acme.example`,
    email_verified: true,
    name: `User ${sub}`,
    groups,
    ...extra,
  });
  const ctx = () => ({ db: t.db, live });
  const userOf = (sub: string) => t.db.user.findUniqueOrThrow({ where: { ssoSubject: `${iss} ${sub}` } });
  const auditOf = (targetId: string) => t.db.auditEvent.findMany({ where: { targetId }, orderBy: { at: "asc" } });

  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(() => t?.drop());

  it("the first sign-in creates the user with the mapped role and groups, no password, audited", async () => {
    const out = await signInThroughIdp(ctx(), cfg, claims("u1", ["finance-approvers", "everyone"]));
    expect(out.ok).toBe(true);
    const u = await userOf("u1");
    expect(u).toMatchObject({ email: "u1@acme.example", name: "User u1", role: "reviewer", groups: '["finance"]', passwordHash: "" });
    expect(out).toEqual({ ok: true, userId: u.id });
    const audit = await auditOf(u.id);
    expect(audit.map((a) => [a.action, a.actorEmail])).toEqual([["user.create", "u1@acme.example"]]);
    expect(JSON.parse(audit[0].data)).toMatchObject({
      via: "sso",
      issuer: iss,
      idp_groups: ["finance-approvers", "everyone"],
      groups: ["finance"],
    });
  });

  it("a later sign-in applies the IdP's current groups: new routing groups tell the streams; a new role also ends the other sessions", async () => {
    const before = await userOf("u1");
    notices.length = 0;
    await signInThroughIdp(ctx(), cfg, claims("u1", ["finance-approvers", "ops-reviewers"]));
    const moved = await userOf("u1");
    expect([moved.role, moved.groups, moved.sessionVersion]).toEqual(["reviewer", '["finance","ops"]', before.sessionVersion]);
    expect(notices).toEqual([moved.id]);
    // Nothing changed: nothing written, nobody told.
    const audits = (await auditOf(moved.id)).length;
    await signInThroughIdp(ctx(), cfg, claims("u1", ["ops-reviewers", "finance-approvers"]));
    expect((await auditOf(moved.id)).length).toBe(audits);
    expect(notices).toEqual([moved.id]);

    const oldSession = { sub: moved.id, sessionVersion: moved.sessionVersion };
    expect(await actorFromClaims(t.db, oldSession)).not.toBeNull();
    await signInThroughIdp(ctx(), cfg, claims("u1", ["staff"]));
    const demoted = await userOf("u1");
    expect([demoted.role, demoted.groups, demoted.sessionVersion]).toEqual(["submitter", "[]", before.sessionVersion + 1]);
    expect(await actorFromClaims(t.db, oldSession)).toBeNull();
    const last = (await auditOf(demoted.id)).at(-1)!;
    expect(last.action).toBe("user.update");
    expect(JSON.parse(last.data)).toMatchObject({
      via: "sso",
      before: { role: "reviewer", groups: ["finance", "ops"] },
      after: { role: "submitter", groups: [] },
    });
  });

  it("refuses someone in no admitted group and ends the sessions of a user who has left them; refusals are audited", async () => {
    expect(await signInThroughIdp(ctx(), cfg, claims("u2", ["contractors"]))).toEqual({ ok: false, refusal: "SsoNoGroup" });
    expect(await t.db.user.count({ where: { ssoSubject: `${iss} u2` } })).toBe(0);
    expect((await auditOf(`${iss} u2`)).map((a) => a.action)).toEqual(["user.sso_refused"]);

    const u1 = await userOf("u1");
    notices.length = 0;
    expect(await signInThroughIdp(ctx(), cfg, claims("u1", []))).toEqual({ ok: false, refusal: "SsoNoGroup" });
    expect((await userOf("u1")).sessionVersion).toBe(u1.sessionVersion + 1);
    expect(notices).toEqual([u1.id]);
    // With a default role, the same person is admitted as that role.
    expect(await signInThroughIdp(ctx(), { ...cfg, defaultRole: "submitter" }, claims("u2", ["contractors"]))).toMatchObject({ ok: true });
  });

  it("a user disabled here stays out whatever the IdP says", async () => {
    const u = await userOf("u1");
    // As an admin disables (lib/services/users.ts): no IdP reason.
    await t.db.user.update({ where: { id: u.id }, data: { disabled: true, disabledReason: null } });
    expect(await signInThroughIdp(ctx(), cfg, claims("u1", ["console-admins"]))).toEqual({ ok: false, refusal: "SsoDisabled" });
    expect((await userOf("u1")).role).toBe("submitter");
  });

  it("links an existing local user by email only when the IdP verified it; a user needs an email", async () => {
    const local = await t.db.user.create({ data: { email: "local@acme.example", name: "Local", role: "operator", passwordHash: "x" } });
    expect(await signInThroughIdp(ctx(), cfg, claims("u3", ["staff"], { email: "LOCAL@acme.example", email_verified: false }))).toEqual({
      ok: false,
      refusal: "SsoEmailTaken",
    });
    expect(await signInThroughIdp(ctx(), cfg, claims("u3", ["staff"], { email: "local@acme.example" }))).toEqual({
      ok: true,
      userId: local.id,
    });
    expect(await t.db.user.findUniqueOrThrow({ where: { id: local.id } })).toMatchObject({ ssoSubject: `${iss} u3`, role: "submitter" });
    // Linked once: another IdP account with the same email is refused even if verified.
    expect(await signInThroughIdp(ctx(), cfg, claims("u4", ["staff"], { email: "local@acme.example" }))).toMatchObject({
      refusal: "SsoEmailTaken",
    });
    expect(await signInThroughIdp(ctx(), cfg, claims("u5", ["staff"], { email: undefined }))).toEqual({ ok: false, refusal: "SsoNoEmail" });
    // The same subject at another issuer is another person.
    expect(
      await signInThroughIdp(ctx(), cfg, { ...claims("u3", ["staff"], { email: "u3@other.example" }), iss: "https://other.example" }),
    ).toMatchObject({
      ok: true,
    });
    expect(await t.db.user.count({ where: { ssoSubject: { endsWith: " u3" } } })).toBe(2);
  });
});
