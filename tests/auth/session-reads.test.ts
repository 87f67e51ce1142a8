// What every page load reads before its own data: the session cookie's claims (kept per process once
// decrypted, their expiry checked on each use as next-auth checks it) and the user row that says whether
// the session still stands (through the driver), plus the run page's webhook deliveries (through the
// driver): each must give exactly what next-auth and Prisma gave.
import { encode } from "next-auth/jwt";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { actorFromClaims } from "@/lib/auth/actor";
import { requestCaller } from "@/lib/auth/caller";
import { decodeSessionToken, sessionTokenClaims } from "@/lib/auth/session-token";
import { sessionUserById, userById } from "@/lib/db/accounts";
import { webhookDeliveries } from "@/lib/db/read-models";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";

const secret = "session-reads-secret-0123456789";
const opts = { secret, secureCookie: false };
const cookies = (jwt: string) => ({ "next-auth.session-token": jwt });

describe("the session cookie's claims", () => {
  afterEach(() => vi.useRealTimers());

  it("are decrypted once per process and are the claims next-auth wrote", async () => {
    const jwt = await encode({ token: { sub: "u1", sessionVersion: 3, role: "reviewer" }, secret });
    const a = await decodeSessionToken({ token: jwt, secret });
    expect(a).toMatchObject({ sub: "u1", sessionVersion: 3, role: "reviewer" });
    expect(await decodeSessionToken({ token: jwt, secret })).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(await sessionTokenClaims(cookies(jwt), opts)).toEqual({ sub: "u1", sessionVersion: 3, exp: a?.exp });
  });

  it("stop counting once expired (with next-auth's 15 s of tolerance), even when kept", async () => {
    const jwt = await encode({ token: { sub: "u2", sessionVersion: 0 }, secret, maxAge: 60 });
    expect((await sessionTokenClaims(cookies(jwt), opts))?.sub).toBe("u2");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 70_000);
    expect((await sessionTokenClaims(cookies(jwt), opts))?.sub).toBe("u2");
    vi.setSystemTime(Date.now() + 10_000);
    expect(await sessionTokenClaims(cookies(jwt), opts)).toBeNull();
  });

  it("are nobody's under another secret, tampered with, or in another cookie", async () => {
    const jwt = await encode({ token: { sub: "u3", sessionVersion: 0 }, secret });
    expect((await sessionTokenClaims(cookies(jwt), opts))?.sub).toBe("u3");
    expect(await sessionTokenClaims(cookies(jwt), { secret: `${secret}-other`, secureCookie: false })).toBeNull();
    const tampered = `${jwt.slice(0, -4)}${jwt.endsWith("AAAA") ? "BBBB" : "AAAA"}`;
    expect(await sessionTokenClaims(cookies(tampered), opts)).toBeNull();
    expect(await sessionTokenClaims(cookies(jwt), { secret, secureCookie: true })).toBeNull();
    expect(await sessionTokenClaims({}, opts)).toBeNull();
  });
});

describe.each(providers)("session and run page reads on %s", (provider) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(() => t?.drop());

  it("reads the session's user through the driver as Prisma does; a disabled user or a new session epoch stands for nobody", async () => {
    const u = await t.db.user.create({
      data: { email: "s@example.com", name: "S", role: "reviewer", passwordHash: "x", groups: '["finance"]', sessionVersion: 2 },
    });
    const p = await userById(t.db, u.id);
    expect(await sessionUserById(t.db, u.id)).toEqual({
      id: p?.id,
      email: p?.email,
      name: p?.name,
      role: p?.role,
      groups: p?.groups,
      disabled: false,
      sessionVersion: 2,
    });
    expect(await sessionUserById(t.db, "nobody")).toBeNull();
    expect(await actorFromClaims(t.db, { sub: u.id, sessionVersion: 2 })).toEqual({
      id: u.id,
      email: "s@example.com",
      name: "S",
      role: "reviewer",
      groups: ["finance"],
    });
    expect(await actorFromClaims(t.db, { sub: u.id, sessionVersion: 1 })).toBeNull();
    await t.db.user.update({ where: { id: u.id }, data: { disabled: true } });
    expect((await sessionUserById(t.db, u.id))?.disabled).toBe(true);
    expect(await actorFromClaims(t.db, { sub: u.id, sessionVersion: 2 })).toBeNull();

    // The same through a request's cookie, as API routes read it (the kept claims change nothing here).
    await t.db.user.update({ where: { id: u.id }, data: { disabled: false } });
    const { env } = await import("@/lib/env");
    const jwt = await encode({ token: { sub: u.id, sessionVersion: 2 }, secret: env().NEXTAUTH_SECRET });
    const req = () => new Request("http://localhost/api/runs", { headers: { cookie: `next-auth.session-token=${jwt}` } });
    expect((await requestCaller(t.db, req())).actor?.id).toBe(u.id);
    await t.db.user.update({ where: { id: u.id }, data: { sessionVersion: 3 } });
    expect((await requestCaller(t.db, req())).actor).toBeNull();
  });

  it("lists a run's webhook deliveries through the driver as Prisma does, newest first, in any time zone", async () => {
    const base = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    for (let i = 0; i < 23; i++)
      await t.db.webhookDelivery.create({
        data: {
          runId: i % 2 ? "wh-run" : "wh-other",
          event: "run.paused",
          url: "http://hook.example/x",
          payload: "{}",
          status: i % 3 ? "delivered" : "failed",
          attempts: i % 4,
          lastStatus: i % 3 ? 200 : null,
          lastError: i % 3 ? null : "connection refused",
          createdAt: new Date(base + i * 1000),
          deliveredAt: i % 3 ? new Date(base + i * 1000 + 250) : null,
        },
      });
    const tz = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      const viaPrisma = await t.db.webhookDelivery.findMany({ where: { runId: "wh-run" }, orderBy: { createdAt: "desc" }, take: 20 });
      const got = await webhookDeliveries(t.db, "wh-run");
      expect(got).toHaveLength(11);
      expect(got).toEqual(viaPrisma.map(({ payload: _p, runId: _r, ...d }) => d));
      expect(await webhookDeliveries(t.db, "no-such-run")).toEqual([]);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });
});
