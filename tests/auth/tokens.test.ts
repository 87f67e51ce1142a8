// Bearer tokens on the hot path (one joined look-up through the driver): revocation, a disabled user and
// a changed role end a token at once; lastUsedAt is written at most once a minute.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { LiveBus } from "@/lib/live/bus";
import { actorFromToken } from "@/lib/auth/tokens";
import { createToken, revokeToken } from "@/lib/services/tokens";
import type { Actor } from "@/lib/auth/actor";
import { tokenWithUser } from "@/lib/db/accounts";

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

describe.each(providers)("API tokens on %s", (provider) => {
  let t: TestDb;
  const live = new LiveBus();
  let admin: Actor;
  beforeAll(async () => {
    t = await freshDatabase(provider);
    const u = await t.db.user.create({ data: { email: "admin@example.com", name: "A", role: "admin", passwordHash: "x" } });
    admin = { id: u.id, email: u.email, name: u.name, role: "admin" };
  });
  afterAll(() => t?.drop());

  it("a token alone, and a token acting as a user", async () => {
    const plain = await createToken({ db: t.db }, admin, { body: { name: "ci", role: "operator" } });
    expect(await actorFromToken(t.db, plain.token)).toMatchObject({ id: `token:${plain.id}`, role: "operator" });
    const rev = await t.db.user.create({ data: { email: "rev@example.com", name: "R", role: "reviewer", passwordHash: "x" } });
    const asUser = await createToken({ db: t.db }, admin, { body: { name: "bot", role: "reviewer", userId: rev.id } });
    expect(await actorFromToken(t.db, asUser.token)).toEqual({
      id: rev.id,
      email: "rev@example.com",
      name: "R",
      role: "reviewer",
      groups: [],
    });
    // The same look-up inside a transaction (no driver: Prisma's raw query) reads the row alike (a token
    // of its own: a look-up through actorFromToken writes lastUsedAt in the background).
    const looked = hashToken((await createToken({ db: t.db }, admin, { body: { name: "look", role: "reviewer", userId: rev.id } })).token);
    const viaDriver = await tokenWithUser(t.db, looked);
    await t.db.user.update({ where: { id: rev.id }, data: { disabled: true } });
    const disabledViaDriver = await tokenWithUser(t.db, looked);
    await t.db.user.update({ where: { id: rev.id }, data: { disabled: false } });
    expect(viaDriver?.user?.disabled).toBe(false);
    expect(disabledViaDriver?.user?.disabled).toBe(true);
    expect(await t.db.$transaction((tx) => tokenWithUser(tx as typeof t.db, looked))).toEqual(viaDriver);
    await t.db.user.update({ where: { id: rev.id }, data: { role: "operator" } });
    expect(await actorFromToken(t.db, asUser.token)).toBeNull();
    await t.db.user.update({ where: { id: rev.id }, data: { role: "reviewer", disabled: true } });
    expect(await actorFromToken(t.db, asUser.token)).toBeNull();
    await revokeToken({ db: t.db, live }, admin, { tokenId: plain.id });
    expect(await actorFromToken(t.db, plain.token)).toBeNull();
    expect(await actorFromToken(t.db, "afk_not-a-token")).toBeNull();
  });

  it("records use at most once a minute", async () => {
    const tok = await createToken({ db: t.db }, admin, { body: { name: "busy", role: "reviewer" } });
    await actorFromToken(t.db, tok.token);
    await expect.poll(async () => (await t.db.apiToken.findUnique({ where: { id: tok.id } }))?.lastUsedAt).not.toBeNull();
    const first = (await t.db.apiToken.findUnique({ where: { id: tok.id } }))!.lastUsedAt!;
    for (let i = 0; i < 5; i++) await actorFromToken(t.db, tok.token);
    await new Promise((r) => setTimeout(r, 100));
    expect((await t.db.apiToken.findUnique({ where: { id: tok.id } }))!.lastUsedAt).toEqual(first);
    await t.db.apiToken.update({ where: { id: tok.id }, data: { lastUsedAt: new Date(Date.now() - 120_000) } });
    await actorFromToken(t.db, tok.token);
    await expect
      .poll(async () => (await t.db.apiToken.findUnique({ where: { id: tok.id } }))!.lastUsedAt!.getTime())
      .toBeGreaterThan(Date.now() - 10_000);
  });
});
