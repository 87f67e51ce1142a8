// The CLI through a running console (AFK_URL + AFK_TOKEN), as an API client: the real process against the
// production server, with tokens an admin made for the submitter and the reviewer. A run it starts is on
// /runs with its audit entries naming each user; readable output by default, --json parses, an error is
// one line with a non-zero exit.
import { execFile } from "node:child_process";
import { type Page, expect, test } from "@playwright/test";
import { signInAs, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

type Out = { code: number; out: string; err: string };

function afk(baseURL: string, token: string, args: string[]): Promise<Out> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=react-server", "--import", "tsx", "scripts/afk.ts", ...args],
      // No database here: the server is the only way in.
      {
        env: { ...process.env, AFK_URL: baseURL, AFK_TOKEN: token, AFK_ACTOR: "", DATABASE_URL: "file:./data/no-such-cli.db" },
        timeout: 120_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr }),
    );
  });
}

const parsed = <T>(r: Out): T => {
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as T;
};

async function tokenFor(admin: Page, email: string, role: string): Promise<{ id: string; token: string; userId: string }> {
  const users = (await (await admin.request.get("/api/admin/users")).json()).users as { id: string; email: string }[];
  const user = users.find((u) => u.email === email)!;
  const res = await admin.request.post("/api/admin/tokens", { data: { name: `cli-${role}-${Date.now()}`, role, userId: user.id } });
  expect(res.status()).toBe(201);
  const { id, token } = await res.json();
  return { id, token, userId: user.id };
}

test("the CLI through the REST API: start, list, decide (the last decision resumes), audited under each token's user", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const admin = await (await browser.newContext()).newPage();
  await signInAs(admin, "admin");
  const sub = (await tokenFor(admin, "submitter@example.com", "submitter")).token;
  const rev = (await tokenFor(admin, "reviewer@example.com", "reviewer")).token;
  const cli = (token: string, ...args: string[]) => afk(baseURL!, token, args);

  const input = JSON.stringify({ order_id: "ORD-4242", amount_cents: 9000, reason: "late and broken" });
  const view = parsed<{ run: { id: string; state: string }; approvals: { id: string; tool_name: string }[] }>(
    await cli(sub, "start", "refund-desk", "--input", input, "--wait", "--json"),
  );
  expect(view.run.state).toBe("paused");
  const id = view.run.id;
  const byTool = Object.fromEntries(view.approvals.map((a) => [a.tool_name, a.id]));

  // Listed by the CLI and on the console's /runs page.
  const listed = parsed<{ runs: { id: string }[] }>(await cli(sub, "runs", "--agent", "refund-desk", "--json"));
  expect(listed.runs.map((r) => r.id)).toContain(id);
  await admin.goto("/runs?agent=refund-desk");
  await expect(admin.locator(`a[href="/runs/${id}"]`)).toBeVisible();

  // Readable by default: the inbox as a table, the run's state in words.
  const inbox = await cli(rev, "inbox", "--agent", "refund-desk");
  expect(inbox.code, inbox.err).toBe(0);
  expect(inbox.out.split("\n")[0]).toMatch(/^APPROVAL\s+AGENT\s+TOOL\s+KIND\s+WAITING SINCE\s+YOU DECIDE\s+SUMMARY$/);
  expect(inbox.out).toContain(byTool.issue_refund);
  const shown = await cli(rev, "show", id);
  expect(shown.out).toMatch(/state\s+paused: waiting for 2 decisions/);
  expect(shown.out).toMatch(/submitted\s+submitter@example.com at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);

  // The submitter may not decide their own run's approvals: one line, exit 1.
  const refused = await cli(sub, "approve", byTool.issue_refund);
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/^afk: .+ \(403\)\n$/);

  const approved = await cli(rev, "approve", byTool.issue_refund);
  expect(approved.code, approved.err).toBe(0);
  expect(approved.out).toContain(`Approved ${byTool.issue_refund} (issue_refund): approved`);
  expect(
    parsed<{ approval: { status: string } }>(await cli(rev, "reject", byTool.notify_customer, "--reason", "we phone them", "--json"))
      .approval.status,
  ).toBe("rejected");
  // The last decision resumes the run by itself: nobody runs `afk resume`.
  await expect
    .poll(async () => parsed<{ run: { state: string } }>(await cli(rev, "show", id, "--json")).run.state, { timeout: 60_000 })
    .toBe("completed");

  // Audited under each token's user, as the console's own actions are.
  const audit = (await (await admin.request.get(`/api/audit?targetId=${id}`)).json()).events as {
    action: string;
    actorEmail: string | null;
  }[];
  expect(audit.map((e) => [e.action, e.actorEmail]).sort()).toEqual(
    [
      ["approval.approve", "reviewer@example.com"],
      ["approval.reject", "reviewer@example.com"],
      ["run.auto_resume", null],
      ["run.start", "submitter@example.com"],
    ].sort(),
  );

  // A second resume is refused with the run's state; errors are one line (JSON with --json).
  const again = await cli(rev, "resume", id);
  expect(again).toEqual({ code: 1, out: "", err: "afk: Run is completed, not paused (409)\n" });
  const missing = await cli(rev, "show", "no-such-run", "--json");
  expect(missing.code).toBe(1);
  expect(JSON.parse(missing.err)).toEqual({ error: "No such run", status: 404 });
  const badToken = await cli("afk_not-a-token", "runs");
  expect(badToken).toEqual({ code: 1, out: "", err: "afk: Invalid or revoked API token (401)\n" });
  const local = await cli(rev, "sweep");
  expect(local.code).toBe(2);
  expect(local.err).toMatch(/^afk: sweep works on the database itself/);
});

test("revocation ends the CLI's remote access at once: a revoked token, and the token of a user disabled since", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const admin = await (await browser.newContext()).newPage();
  await signInAs(admin, "admin");
  const cli = (token: string, ...args: string[]) => afk(baseURL!, token, args);
  const refused = { code: 1, out: "", err: "afk: Invalid or revoked API token (401)\n" };
  // Before: the token works through the REST API the CLI calls (each CLI process costs seconds).
  const works = async (token: string) =>
    expect((await fetch(`${baseURL}/api/runs`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

  const rev = await tokenFor(admin, "reviewer@example.com", "reviewer");
  await works(rev.token);
  expect((await admin.request.delete(`/api/admin/tokens/${rev.id}`)).status()).toBe(200);
  expect(await cli(rev.token, "runs")).toEqual(refused);

  // A user of their own, so that disabling them takes nothing from the other specs' demo users.
  const email = `cli-leaver-${Date.now()}@example.com`;
  const created = await admin.request.post("/api/admin/users", {
    data: { email, name: "Leaver", role: "reviewer", password: "leaver-password-1" },
  });
  expect(created.status()).toBe(201);
  const leaver = await tokenFor(admin, email, "reviewer");
  await works(leaver.token);
  expect((await admin.request.patch(`/api/admin/users/${leaver.userId}`, { data: { disabled: true } })).status()).toBe(200);
  expect(await cli(leaver.token, "inbox")).toEqual(refused);
  await admin.context().close();
});
