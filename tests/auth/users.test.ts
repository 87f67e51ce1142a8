import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { LiveBus } from "@/lib/live/bus";
import { actorFromClaims, type Actor } from "@/lib/auth/actor";
import { ForbiddenError, UnauthorizedError, ValidationError, ConflictError } from "@/lib/auth/errors";
import { verifyPassword } from "@/lib/auth/password";
import { createUser, listUsers, updateUser } from "@/lib/services/users";

describe.each(providers)("users and roles on %s", (provider) => {
  let t: TestDb;
  const live = new LiveBus();
  let admin: Actor;
  let submitter: Actor;

  beforeAll(async () => {
    t = await freshDatabase(provider);
    const a = await t.db.user.create({ data: { email: "root@example.com", name: "Root", role: "admin", passwordHash: "x" } });
    const s = await t.db.user.create({ data: { email: "sub@example.com", name: "Sub", role: "submitter", passwordHash: "x" } });
    admin = { id: a.id, email: a.email, name: a.name, role: "admin" };
    submitter = { id: s.id, email: s.email, name: s.name, role: "submitter" };
  });
  afterAll(() => t?.drop());

  it("an admin creates a user with a bcrypt hash and an audit event", async () => {
    const u = await createUser({ db: t.db }, admin, {
      body: { email: "New@Example.com", name: "New", role: "reviewer", password: "longenough" },
    });
    expect(u.email).toBe("new@example.com");
    const row = await t.db.user.findUniqueOrThrow({ where: { id: u.id } });
    expect(row.passwordHash).toMatch(/^\$2[aby]\$10\$/);
    expect(await verifyPassword("longenough", row.passwordHash)).toBe(true);
    const audit = await t.db.auditEvent.findMany({ where: { targetId: u.id } });
    expect(audit.map((a) => [a.action, a.actorEmail])).toEqual([["user.create", "root@example.com"]]);
  });

  it("refuses a submitter (403) and nobody (401) and writes nothing", async () => {
    const before = [await t.db.user.count(), await t.db.auditEvent.count()];
    const input = { email: "x@example.com", name: "X", role: "admin", password: "longenough" };
    await expect(createUser({ db: t.db }, submitter, { body: input })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(createUser({ db: t.db }, null, { body: input })).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(updateUser({ db: t.db, live }, submitter, { userId: admin.id, body: { disabled: true } })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    await expect(listUsers({ db: t.db }, submitter)).rejects.toBeInstanceOf(ForbiddenError);
    expect([await t.db.user.count(), await t.db.auditEvent.count()]).toEqual(before);
  });

  it("names the wrong field of a bad body", async () => {
    const bad = [
      [{ email: "nope", name: "N", role: "admin", password: "longenough" }, "email"],
      [{ email: "a@b.co", name: "", role: "admin", password: "longenough" }, "name"],
      [{ email: "a@b.co", name: "N", role: "root", password: "longenough" }, "role"],
      [{ email: "a@b.co", name: "N", role: "admin", password: "short" }, "password"],
      [{ email: "a@b.co", name: "N", role: "admin", password: "longenough", extra: 1 }, "extra"],
    ] as const;
    for (const [input, field] of bad) {
      const err = await createUser({ db: t.db }, admin, { body: input }).catch((e) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe(field);
    }
    await expect(
      createUser({ db: t.db }, admin, { body: { email: "sub@example.com", name: "S", role: "admin", password: "longenough" } }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it("disabling a user or changing a role ends their live session", async () => {
    const u = await createUser({ db: t.db }, admin, {
      body: { email: "live@example.com", name: "Live", role: "operator", password: "longenough" },
    });
    const claims = { sub: u.id, sessionVersion: 0 };
    expect((await actorFromClaims(t.db, claims))?.role).toBe("operator");
    await updateUser({ db: t.db, live }, admin, { userId: u.id, body: { role: "reviewer" } });
    expect(await actorFromClaims(t.db, claims)).toBeNull();
    expect((await actorFromClaims(t.db, { sub: u.id, sessionVersion: 1 }))?.role).toBe("reviewer");
    await updateUser({ db: t.db, live }, admin, { userId: u.id, body: { disabled: true } });
    expect(await actorFromClaims(t.db, { sub: u.id, sessionVersion: 2 })).toBeNull();
  });

  it("an admin cannot disable themself", async () => {
    const err = await updateUser({ db: t.db, live }, admin, { userId: admin.id, body: { disabled: true } }).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
  });
});
