// `afk users …` and `afk tokens …`: people and API tokens on the database itself (local only; a remote
// admin has the console's pages and /api/admin). The first admin of a new deployment is made here.
import { flag, has, positional } from "./args.ts";
import { UsageError } from "./backend.ts";
import type { Command, Ctx } from "./command.ts";

export const ADMIN_USAGE = `  users list                                the users (as an admin)
  users create --email E --role R [--name N] [--groups a,b] --password-stdin
                                            a user whose password is read from stdin; with no admin in the
                                            database yet, --role admin without --as makes the first admin
  tokens list | tokens revoke <id>          API tokens (as an admin)
  tokens create --name N --role R [--user E]   a token, shown once (--user: it acts as that user)`;

async function password(c: Ctx): Promise<string> {
  if (!has(c.p, "password-stdin"))
    throw new UsageError("users create needs --password-stdin (the password on standard input; never an argument)");
  if (!c.io.stdin) throw new UsageError("--password-stdin: no standard input here");
  // One line: `echo "$PW" | afk users create …` and a file both end in a newline that is not the password's.
  return (await c.io.stdin()).replace(/\r?\n$/, "");
}

const sub = (c: Ctx, names: string[]) => {
  const s = positional(c.p, 0, names.join(" | "));
  if (!names.includes(s)) throw new UsageError(`${c.p.command} ${s}: unknown (${names.join(", ")})`);
  return s;
};

const users: Command = {
  flags: { email: "value", name: "value", role: "value", groups: "value", "password-stdin": "bool" },
  local: true,
  async run(c) {
    const people = await import("./people.ts");
    if (sub(c, ["list", "create"]) === "list") {
      const list = await people.listUsersLocal(c.as);
      return c.print(list.map((u) => `${u.email}\t${u.role}${u.disabled ? "\tdisabled" : ""}`).join("\n"), { users: list });
    }
    const email = flag(c.p, "email");
    const role = flag(c.p, "role");
    if (!email || !role) throw new UsageError("users create needs --email and --role");
    const groups = flag(c.p, "groups")
      ?.split(",")
      .map((g) => g.trim())
      .filter(Boolean);
    const body = {
      email,
      role,
      name: flag(c.p, "name") ?? email.split("@")[0],
      password: await password(c),
      ...(groups ? { groups } : {}),
    };
    const user = await people.createUserLocal(c.as, body);
    c.print(`Created ${user.role} ${user.email}${c.as ? "" : " (the first admin)"}: they sign in with that password.`, { user });
  },
};

const tokens: Command = {
  flags: { name: "value", role: "value", user: "value" },
  local: true,
  async run(c) {
    const people = await import("./people.ts");
    const s = sub(c, ["list", "create", "revoke"]);
    if (s === "list") {
      const list = await people.listTokensLocal(c.as);
      const line = (t: (typeof list)[number]) => `${t.id}\t${t.prefix}…\t${t.name}\t${t.role}${t.revokedAt ? "\trevoked" : ""}`;
      return c.print(list.map(line).join("\n"), { tokens: list });
    }
    if (s === "revoke") {
      const token = await people.revokeTokenLocal(c.as, positional(c.p, 1, "a token id (afk tokens list)"));
      return c.print(`Revoked token ${token.name} (${token.prefix}…)`, { token });
    }
    const name = flag(c.p, "name");
    const role = flag(c.p, "role");
    if (!name || !role) throw new UsageError("tokens create needs --name and --role");
    const t = await people.createTokenLocal(c.as, { name, role, user: flag(c.p, "user") });
    c.print(`${t.token}\n(token ${t.name}, ${t.role}: shown only now; AFK_TOKEN=<it> with AFK_URL)`, t);
  },
};

export const ADMIN_COMMANDS: Record<string, Command> = { users, tokens };
