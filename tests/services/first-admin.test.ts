// The first admin from the bootstrap variables (lib/services/first-admin.ts): made once from the password
// file while the database has no active admin, never again, never over an existing user; a missing file or
// a short password is an error naming the variable; the variables come as a pair.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/password";
import { EnvError, parseEnv } from "@/lib/env";
import { bootstrapFirstAdmin } from "@/lib/services/first-admin";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";

const dir = mkdtempSync(path.join(tmpdir(), "afk-bootstrap-"));
const file = (name: string, text: string) => {
  writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};

describe.each(providers)("the bootstrap admin on %s", (provider) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("refuses an unreadable file and a short password, naming the variable, and writes nothing", async () => {
    const ctx = { db: t.db };
    await expect(bootstrapFirstAdmin(ctx, { email: "ops@example.com", passwordFile: path.join(dir, "missing") })).rejects.toMatchObject({
      field: "AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE",
      message: expect.stringMatching(/^cannot be read: /),
    });
    await expect(bootstrapFirstAdmin(ctx, { email: "ops@example.com", passwordFile: file("short", "short\n") })).rejects.toMatchObject({
      field: "AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE",
    });
    expect(await t.db.user.count()).toBe(0);
  });

  it("makes the admin once from the file; later starts leave it", async () => {
    const ctx = { db: t.db };
    const passwordFile = file("pw", "bootstrap-pw-2026\n");
    const made = await bootstrapFirstAdmin(ctx, { email: "Ops@Example.com", passwordFile });
    expect(made).toMatchObject({ email: "ops@example.com", role: "admin" });
    const row = await t.db.user.findUniqueOrThrow({ where: { email: "ops@example.com" } });
    expect(await verifyPassword("bootstrap-pw-2026", row.passwordHash)).toBe(true);
    // Another start, another password in the file, another email: nothing changes.
    expect(await bootstrapFirstAdmin(ctx, { email: "ops@example.com", passwordFile: file("pw2", "another-pw-2026") })).toBeNull();
    expect(await bootstrapFirstAdmin(ctx, { email: "second@example.com", passwordFile })).toBeNull();
    expect(await t.db.user.count()).toBe(1);
    expect(await verifyPassword("bootstrap-pw-2026", (await t.db.user.findUniqueOrThrow({ where: { id: row.id } })).passwordHash)).toBe(
      true,
    );
    expect(await t.db.auditEvent.count({ where: { action: "user.create", targetId: row.id, actorId: null } })).toBe(1);
  });
});

describe("the bootstrap variables", () => {
  it("come as a pair, each named when the other is missing", () => {
    const base = { NEXTAUTH_SECRET: "s".repeat(32), AFK_DATA_DIR: dir };
    expect(() => parseEnv({ ...base, AFK_BOOTSTRAP_ADMIN_EMAIL: "ops@example.com" })).toThrow(
      /^Invalid environment variable AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE: /,
    );
    expect(() => parseEnv({ ...base, AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE: "/run/secrets/pw" })).toThrow(EnvError);
    expect(() => parseEnv({ ...base, AFK_BOOTSTRAP_ADMIN_EMAIL: "not an email", AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE: "/x" })).toThrow(
      /^Invalid environment variable AFK_BOOTSTRAP_ADMIN_EMAIL: must be an email address/,
    );
    expect(
      parseEnv({ ...base, AFK_BOOTSTRAP_ADMIN_EMAIL: "", AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE: "" }).AFK_BOOTSTRAP_ADMIN_EMAIL,
    ).toBeUndefined();
  });
});
