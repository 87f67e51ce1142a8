// Removal at the IdP ends every kind of access: a known user whose sign-in the IdP no longer admits is
// suspended (sessions, their API tokens, a linked local password), the Users list says why and since when,
// and only an admin or the IdP admitting them again restores access. A default role never overrides what
// an admin set while the IdP sends no mapped group; a groups claim the ID token lacks is warned about once.
// Streams closing within seconds on every instance: tests/auth/revocation.test.ts ("removed at the IdP").
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { actorFromClaims } from "@/lib/auth/actor";
import { passwordSignIn } from "@/lib/auth/password-signin";
import type { GroupMap, SsoConfig } from "@/lib/auth/sso";
import { signInThroughIdp } from "@/lib/auth/sso-users";
import { LiveBus, type LiveMessage } from "@/lib/live/bus";
import { actorFromToken } from "@/lib/auth/tokens";
import { createToken } from "@/lib/services/tokens";
import { createUser, listUsers, updateUser } from "@/lib/services/users";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";

const admin = { id: "admin-1", email: "admin@acme.example", name: "Admin", role: "admin" as const };
const map: GroupMap = { "finance-approvers": { role: "reviewer", groups: ["finance"] }, staff: { role: "submitter" } };
const cfg: SsoConfig = {
  issuer: "https://idp.example.com",
  clientId: "afk",
  clientSecret: "secret",
  name: "Acme",
  scopes: "openid email profile",
  groupsClaim: "groups",
  groupMap: map,
};
const claims = (sub: string, email: string, groups: string[] | undefined) => ({
  iss: cfg.issuer,
  sub,
  email,
  email_verified: true,
  ...(groups ? { groups } : {}),
});

describe.each(providers)("removal at the IdP on %s", (provider) => {
  let t: TestDb;
  const live = new LiveBus();
  const notices: string[] = [];
  live.subscribe((m: LiveMessage) => {
    if (m.topic === "access") notices.push(m.actorId);
  });
  const ctx = () => ({ db: t.db, live });
  const row = (id: string) => t.db.user.findUniqueOrThrow({ where: { id } });
  const password = (email: string, pw: string) =>
    passwordSignIn(t.db, { email, password: pw }, `10.0.0.${Math.floor(Math.random() * 200)}`);

  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(() => t?.drop());

  it("suspends a known user: sessions, their API tokens and a linked password stop; the Users list says why; the IdP admitting them restores", async () => {
    // A local reviewer with a password and an API token, then linked to the IdP by their verified email.
    const local = await createUser(ctx(), admin, {
      body: { email: "rita@acme.example", name: "Rita", role: "reviewer", password: "long-enough-1", groups: ["finance"] },
    });
    const token = await createToken(ctx(), admin, { body: { name: "rita-cli", role: "reviewer", userId: local.id } });
    expect(await password("rita@acme.example", "long-enough-1")).toMatchObject({ id: local.id });
    expect(await signInThroughIdp(ctx(), cfg, claims("rita", "rita@acme.example", ["finance-approvers"]))).toEqual({
      ok: true,
      userId: local.id,
    });
    // Linked: the IdP signs her in; her old password no longer does, until an admin keeps it on.
    await expect(password("rita@acme.example", "long-enough-1")).rejects.toThrow(/Wrong email or password/);
    await updateUser(ctx(), admin, { userId: local.id, body: { passwordKept: true } });
    expect(await password("rita@acme.example", "long-enough-1")).toMatchObject({ id: local.id });
    const session = { sub: local.id, sessionVersion: (await row(local.id)).sessionVersion };
    expect(await actorFromClaims(t.db, session)).not.toBeNull();
    expect(await actorFromToken(t.db, token.token)).toMatchObject({ id: local.id });

    // The IdP takes her out of every admitted group: refused, and suspended everywhere.
    notices.length = 0;
    expect(await signInThroughIdp(ctx(), cfg, claims("rita", "rita@acme.example", ["contractors"]))).toEqual({
      ok: false,
      refusal: "SsoNoGroup",
    });
    expect(notices).toEqual([local.id]);
    expect(await actorFromClaims(t.db, session)).toBeNull();
    expect(await actorFromToken(t.db, token.token)).toBeNull();
    // Even the password an admin kept on does not outlive the IdP's removal.
    await expect(password("rita@acme.example", "long-enough-1")).rejects.toThrow(/Wrong email or password/);
    const listed = (await listUsers(ctx(), admin)).find((u) => u.id === local.id)!;
    expect(listed).toMatchObject({ disabled: true, disabledReason: "idp", linked: true, hasPassword: true, passwordKept: true });
    expect(Date.now() - Date.parse(listed.disabledAt!)).toBeLessThan(60_000);
    const audit = await t.db.auditEvent.findMany({ where: { targetId: local.id, action: "user.suspend" } });
    expect(audit.map((a) => JSON.parse(a.data))).toEqual([
      expect.objectContaining({ reason: "idp", via: "sso", idp_groups: ["contractors"] }),
    ]);

    // Admitted again by the IdP: access is back (a new session; the token works again), audited.
    expect(await signInThroughIdp(ctx(), cfg, claims("rita", "rita@acme.example", ["finance-approvers"]))).toMatchObject({ ok: true });
    expect(await row(local.id)).toMatchObject({ disabled: false, disabledReason: null, disabledAt: null });
    expect(await actorFromToken(t.db, token.token)).toMatchObject({ id: local.id });
    expect(await t.db.auditEvent.count({ where: { targetId: local.id, action: "user.restore" } })).toBe(1);
  });

  it("an admin can restore a suspended user; an admin's disable is never lifted by the IdP", async () => {
    const out = await signInThroughIdp(ctx(), cfg, claims("sam", "sam@acme.example", ["staff"]));
    if (!out.ok) throw new Error("refused");
    await signInThroughIdp(ctx(), cfg, claims("sam", "sam@acme.example", []));
    expect(await row(out.userId)).toMatchObject({ disabled: true, disabledReason: "idp" });
    const enabled = await updateUser(ctx(), admin, { userId: out.userId, body: { disabled: false } });
    expect(enabled).toMatchObject({ disabled: false, disabledReason: null, disabledAt: null });
    expect(await actorFromClaims(t.db, { sub: out.userId, sessionVersion: (await row(out.userId)).sessionVersion })).not.toBeNull();

    const disabled = await updateUser(ctx(), admin, { userId: out.userId, body: { disabled: true } });
    expect(disabled).toMatchObject({ disabled: true, disabledReason: null });
    expect(await signInThroughIdp(ctx(), cfg, claims("sam", "sam@acme.example", ["staff"]))).toEqual({ ok: false, refusal: "SsoDisabled" });
    expect(await row(out.userId)).toMatchObject({ disabled: true, disabledReason: null });
  });

  it("with a default role and no mapped group from the IdP, the role and groups an admin set stand; a mapped group changes them", async () => {
    const withDefault: SsoConfig = { ...cfg, defaultRole: "submitter" };
    const first = await signInThroughIdp(ctx(), withDefault, claims("dana", "dana@acme.example", ["everyone"]));
    if (!first.ok) throw new Error("refused");
    expect(await row(first.userId)).toMatchObject({ role: "submitter", groups: "[]" });
    await updateUser(ctx(), admin, { userId: first.userId, body: { role: "reviewer", groups: ["ops"] } });
    const version = (await row(first.userId)).sessionVersion;
    notices.length = 0;
    for (const groups of [["everyone"], [], undefined]) {
      expect(await signInThroughIdp(ctx(), withDefault, claims("dana", "dana@acme.example", groups))).toMatchObject({ ok: true });
      expect(await row(first.userId)).toMatchObject({ role: "reviewer", groups: '["ops"]', sessionVersion: version });
    }
    expect(notices).toEqual([]);
    // The IdP sends a mapped group: the IdP's word now.
    await signInThroughIdp(ctx(), withDefault, claims("dana", "dana@acme.example", ["finance-approvers"]));
    expect(await row(first.userId)).toMatchObject({ role: "reviewer", groups: '["finance"]' });
  });
});

describe("a groups claim the ID token lacks", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase("sqlite");
  });
  afterAll(() => t?.drop());

  it("warns once (one log line) when the configured groups claim is absent from an ID token", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      const nested: SsoConfig = { ...cfg, groupsClaim: `["https://example.com/claims"].groups`, defaultRole: "submitter" };
      const ctx = { db: t.db, live: new LiveBus() };
      await signInThroughIdp(ctx, nested, {
        ...claims("w1", "w1@acme.example", undefined),
        "https://example.com/claims": { groups: ["staff"] },
      });
      expect(lines.filter((l) => l.includes("AFK_OIDC_GROUPS_CLAIM"))).toEqual([]);
      await signInThroughIdp(ctx, nested, claims("w2", "w2@acme.example", ["staff"]));
      await signInThroughIdp(ctx, nested, claims("w3", "w3@acme.example", ["staff"]));
      const warned = lines.filter((l) => l.includes("AFK_OIDC_GROUPS_CLAIM"));
      expect(warned).toHaveLength(1);
      expect(warned[0]).toContain('[\\"https://example.com/claims\\"].groups');
    } finally {
      spy.mockRestore();
    }
  });
});
