// The CLI's users and tokens (lib/cli/admin.ts) as an operator runs them on a new deployment's database:
// the first admin from a password on stdin (no default password, nobody signed in, audited as such), once
// only; after that an admin acts (--as), and a non-admin is refused; a token made here works for the API.
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyPassword } from "@/lib/auth/password";
import { actorFromToken } from "@/lib/auth/tokens";
import { bundledEntry } from "../helpers/bundled-entry";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";

const root = path.resolve(import.meta.dirname, "../..");
vi.setConfig({ testTimeout: 300_000 });
type Out = { code: number; out: string; err: string };

async function afk(url: string, args: string[], stdin = ""): Promise<Out> {
  const entry = await bundledEntry("scripts/afk.ts");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--conditions=react-server", entry, ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url, AFK_URL: "", AFK_TOKEN: "", AFK_ACTOR: "" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => resolve({ code: code ?? 1, out, err }));
    child.stdin.end(stdin);
  });
}

describe.each(providers)("afk users and tokens on %s", (provider) => {
  let t: TestDb;
  const run = (args: string[], stdin?: string) => afk(t.url, args, stdin);
  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("makes the first admin from a password on stdin, audited with no actor", async () => {
    const r = await run(["users", "create", "--email", "Ops@Example.com", "--role", "admin", "--password-stdin"], "first-admin-pw-2026\n");
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("Created admin ops@example.com (the first admin)");
    const user = await t.db.user.findUniqueOrThrow({ where: { email: "ops@example.com" } });
    expect(user.role).toBe("admin");
    // The line's newline is not part of the password.
    expect(await verifyPassword("first-admin-pw-2026", user.passwordHash)).toBe(true);
    const audit = await t.db.auditEvent.findFirstOrThrow({ where: { action: "user.create", targetId: user.id } });
    expect(audit.actorId).toBeNull();
    expect(JSON.parse(audit.data)).toMatchObject({ email: "ops@example.com", role: "admin", first_admin: true });
  });

  it("refuses a second first admin (409, nothing written) and a password anywhere but stdin", async () => {
    const again = await run(
      ["users", "create", "--email", "other@example.com", "--role", "admin", "--password-stdin"],
      "another-pw-2026\n",
    );
    expect(again.code).toBe(1);
    expect(again.err.trim().split("\n")).toHaveLength(1);
    expect(again.err).toMatch(/has an admin already.*\(409\)/);
    const noStdin = await run(["users", "create", "--email", "other@example.com", "--role", "admin"]);
    expect(noStdin.code).toBe(2);
    expect(noStdin.err).toContain("--password-stdin");
    const asArg = await run(["users", "create", "--email", "other@example.com", "--role", "admin", "--password", "x"]);
    expect(asArg.code).toBe(2);
    expect(await t.db.user.count({ where: { email: "other@example.com" } })).toBe(0);
  });

  it("then an admin adds people; a reviewer may not", async () => {
    const r = await run(
      [
        "users",
        "create",
        "--email",
        "rev@example.com",
        "--role",
        "reviewer",
        "--groups",
        "finance",
        "--password-stdin",
        "--as",
        "ops@example.com",
      ],
      "reviewer-pw-2026",
    );
    expect(r.code, r.err).toBe(0);
    expect(await t.db.user.findUniqueOrThrow({ where: { email: "rev@example.com" } })).toMatchObject({
      role: "reviewer",
      groups: '["finance"]',
    });
    const refused = await run(
      ["users", "create", "--email", "x@example.com", "--role", "admin", "--password-stdin", "--as", "rev@example.com"],
      "pw-pw-pw-pw",
    );
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/\(403\)/);
    const list = await run(["users", "list", "--json", "--as", "ops@example.com"]);
    expect(JSON.parse(list.out).users.map((u: { email: string }) => u.email)).toEqual(["ops@example.com", "rev@example.com"]);
  });

  it("creates a token shown once that acts for the API, lists and revokes it", async () => {
    const made = await run(["tokens", "create", "--name", "ci", "--role", "submitter", "--json", "--as", "ops@example.com"]);
    expect(made.code, made.err).toBe(0);
    const { id, token } = JSON.parse(made.out) as { id: string; token: string };
    expect(await actorFromToken(t.db, token)).toMatchObject({ role: "submitter", name: "ci" });
    const list = await run(["tokens", "list", "--as", "ops@example.com"]);
    expect(list.out).toContain(`${id}\t${token.slice(0, 8)}…\tci\tsubmitter`);
    expect(list.out).not.toContain(token);
    expect((await run(["tokens", "revoke", id, "--as", "ops@example.com"])).code).toBe(0);
    expect(await actorFromToken(t.db, token)).toBeNull();
  });
});
