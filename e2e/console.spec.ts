// The review console in Chromium against the production build: start → pause → decide → resume → done,
// reject, quorum, separation of duties, hostile model output, and the REST API with tokens.
import path from "node:path";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import Database from "better-sqlite3";
import { type Browser, type BrowserContext, type Page, expect, test } from "@playwright/test";
import { keys } from "../lib/runner/keys";
import { toolIdempotencyKey } from "../lib/runner/tools";
import { apiSession, signInAs, startFromForm, wholePageShot, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

const shots = path.resolve("public/screenshots");
mkdirSync(shots, { recursive: true });
const dbFile = path.resolve((process.env.E2E_DATABASE_URL ?? "file:./data/e2e.db").replace(/^file:/, ""));
const sql = <T>(query: string, ...args: unknown[]) => {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare(query).all(...args) as T[];
  } finally {
    db.close();
  }
};

// Each role signs in through the form once in this file; its later pages start from that session's cookies
// (taken right after the sign-in) and open the role's landing page as a sign-in does, signed in as the role.
const sessions = new Map<string, Awaited<ReturnType<BrowserContext["storageState"]>>>();

async function as(browser: Browser, role: string): Promise<Page> {
  const ctx = await browser.newContext({ colorScheme: "light", viewport: { width: 1280, height: 900 }, storageState: sessions.get(role) });
  const page = await ctx.newPage();
  if (sessions.has(role)) {
    await page.goto("/");
    await expect(page.getByTestId("whoami")).toContainText(`${role}@example.com`);
  } else {
    await signInAs(page, role);
    sessions.set(role, await ctx.storageState());
  }
  return page;
}

test("refund-desk: submitter starts from the form, reviewer edits and approves, run completes, operator diffs the timeline", async ({
  browser,
}) => {
  const submitter = await as(browser, "submitter");
  // Inline validation from the agent's schema first.
  await submitter.goto("/runs/new");
  await submitter.getByLabel("Agent").selectOption("refund-desk");
  await submitter.locator("#input-order_id").fill("12345");
  await submitter.locator("#input-amount_cents").fill("90.00");
  await submitter.locator("#input-reason").fill("Arrived broken");
  await submitter.getByRole("button", { name: "Start run" }).click();
  await expect(submitter.locator("#input-order_id-error")).toHaveText("Order ids look like ORD-12345");
  await expect(submitter.locator("#input-order_id")).toHaveAttribute("aria-invalid", "true");

  const runId = await startFromForm(submitter, "refund-desk", { order_id: "ORD-4242", amount_cents: "90.00", reason: "Arrived broken" });
  // Live progress without a reload: the run reaches its approvals.
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 15_000 });
  await expect(submitter.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);

  const reviewer = await as(browser, "reviewer");
  await expect(reviewer.getByTestId("pending-badge")).toBeVisible();
  const row = reviewer.getByTestId(`inbox-${runId}:2:call_refund`);
  await expect(row).toContainText("issue_refund");
  await expect(row).toContainText("Amount: €90.00");
  await expect(row).toContainText("submitter@example.com");
  await reviewer.screenshot({ path: path.join(shots, "inbox.png"), fullPage: true });
  await row.getByRole("link").click();
  // The row's link lands on its card, focused, not at the top of the run page.
  await expect(reviewer).toHaveURL(new RegExp(`/runs/${runId}#approval-`));
  const refund = reviewer.getByTestId("approval-issue_refund");
  await expect(refund).toBeFocused();
  await expect(refund).toBeInViewport();
  await refund.getByRole("button", { name: "Edit arguments…" }).click();
  await refund.getByLabel("Amount").fill("60.00");
  await expect(refund.getByRole("list", { name: "Changes to the arguments" })).toContainText("Amount: €90.00 → €60.00");
  await refund.getByRole("button", { name: "Approve with these arguments" }).click();
  await expect(reviewer.getByTestId("approval-status-issue_refund")).toHaveText("approved");
  await expect(refund.getByTestId("arg-changes")).toContainText("Amount: €90.00 → €60.00");
  await expect(reviewer.getByRole("button", { name: "Resume" })).toBeDisabled();
  await reviewer.getByTestId("approval-notify_customer").getByRole("button", { name: "Approve", exact: true }).click();
  await expect(reviewer.getByTestId("approval-status-notify_customer")).toHaveText("approved");
  await reviewer.screenshot({ path: path.join(shots, "run-page.png"), fullPage: true });
  // The last decision resumes the run by itself: nobody presses Resume.
  await expect(reviewer.getByTestId("run-state")).toHaveText("completed", { timeout: 15_000 });
  await expect(reviewer.getByTestId("assistant-text").last()).toHaveText("Refunded 60.00 for ORD-4242.");
  // Nothing is left to resume: no (disabled) Resume button on a finished run.
  await expect(reviewer.getByRole("button", { name: "Resume" })).toHaveCount(0);

  const refunds = sql<{ amountCents: number }>(`SELECT amountCents FROM Refund WHERE runId = ?`, runId);
  expect(refunds).toEqual([{ amountCents: 6000 }]);

  const operator = await as(browser, "operator");
  await operator.goto(`/runs/${runId}/timeline`);
  await expect(operator.getByRole("list", { name: "Checkpoints" })).toBeVisible();
  await operator.getByRole("radio", { name: "Compare from checkpoint 0" }).check();
  const lastSeq = Number((await operator.locator('li[data-testid^="checkpoint-"]').last().getAttribute("data-testid"))!.split("-")[1]);
  await operator.getByRole("radio", { name: `Compare to checkpoint ${lastSeq}` }).check();
  await operator.getByRole("button", { name: "Compare selected" }).click();
  const diff = operator.getByRole("region", { name: "Checkpoint diff" });
  await expect(diff).toContainText(`Checkpoint 0 → ${lastSeq}`);
  await expect(diff.locator('tr[data-changed="true"]', { hasText: "messages" })).toBeVisible();
  await expect(diff.locator("tr").filter({ has: operator.locator("td", { hasText: /^state$/ }) })).toContainText("completed");
  await expect(diff.getByRole("list", { name: "Messages added" })).toContainText("Refunded 60.00");
  await wholePageShot(operator, path.join(shots, "timeline.png"));

  // Dark mode is the same page under prefers-color-scheme: dark.
  await operator.emulateMedia({ colorScheme: "dark" });
  await operator.goto(`/runs/${runId}`);
  await expect(operator.getByTestId("run-state")).toHaveText("completed");
  await operator.screenshot({ path: path.join(shots, "run-page-dark.png"), fullPage: true });
});

test("an MCP tool: the write waits for a reviewer, who sees server and tool, and runs once after the approval", async ({ browser }) => {
  const note = `e2e-${Date.now()}`;
  const submitter = await as(browser, "submitter");
  const runId = await startFromForm(submitter, "notebook", { note, text: "Ship on Friday" });
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 20_000 });
  const reviewer = await as(browser, "reviewer");
  await reviewer.goto(`/runs/${runId}`);
  const card = reviewer.getByTestId("approval-notes__write_note");
  await expect(card.getByTestId("mcp-origin")).toHaveText("MCP server notes · tool write_note");
  // Nothing of the batch ran yet: the write waits for its decision.
  const written = () =>
    readFileSync(path.resolve("data/notes.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.includes(`"${note}"`));
  expect(existsSync(path.resolve("data/notes.jsonl")) ? written() : []).toEqual([]);
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(reviewer.getByTestId("approval-status-notes__write_note")).toHaveText("approved");
  // The decision completed the step: the run resumes by itself.
  await expect(reviewer.getByTestId("run-state")).toHaveText("completed", { timeout: 20_000 });
  await expect(reviewer.getByTestId("assistant-text").last()).toHaveText(`Saved ${note}.`);
  // The read needed nobody; both results came from the MCP server.
  await expect(reviewer.getByTestId("tool-call-notes__read_note")).toContainText(`no note ${note}`);
  await expect(reviewer.getByTestId("tool-call-notes__write_note")).toContainText(`saved ${note}`);
  expect(written()).toHaveLength(1);
  expect(JSON.parse(written()[0])).toEqual({ id: note, text: "Ship on Friday", key: toolIdempotencyKey(runId, 1, "call_write") });
});

test("respond: the reviewer answers in the tool's place; the tool does not run and the model gets the answer", async ({ browser }) => {
  const submitter = await as(browser, "submitter");
  const runId = await startFromForm(submitter, "support-writer", { customer: "Respond Tester", question: "Can I change my address?" });
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 20_000 });
  const reviewer = await as(browser, "reviewer");
  await reviewer.goto(`/runs/${runId}`);
  const card = reviewer.getByTestId("approval-send_reply");
  await card.getByRole("button", { name: "Respond…" }).click();
  await card.getByRole("button", { name: "Send response" }).click();
  await expect(card.getByText("Write the response the model should get")).toBeVisible();
  await card.getByLabel(/Your response/).fill("Address changes go through the account page; I will tell them by phone.");
  await card.getByRole("button", { name: "Send response" }).click();
  await expect(reviewer.getByTestId("approval-status-send_reply")).toHaveText("responded");
  // support-writer resumes by itself; the reply was never sent.
  await expect(reviewer.getByTestId("run-state")).toHaveText("completed", { timeout: 20_000 });
  await expect(reviewer.getByTestId("assistant-text").last()).toHaveText(
    "No reply sent; the reviewer answered instead: Address changes go through the account page; I will tell them by phone.",
  );
  expect(sql("SELECT id FROM OutboxMessage WHERE runId = ?", runId)).toEqual([]);
  expect(sql<{ n: number }>("SELECT count(*) AS n FROM AuditEvent WHERE targetId = ? AND action = 'approval.respond'", runId)[0].n).toBe(1);
});

test("ask a human: the question is in the inbox; the reviewer answers on a form built from its schema; the model gets the answer", async ({
  browser,
}) => {
  const submitter = await as(browser, "submitter");
  const runId = await startFromForm(submitter, "account-setup", { company: "Globex" });
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 20_000 });
  const reviewer = await as(browser, "reviewer");
  await reviewer.goto("/approvals");
  const row = reviewer.locator("tr", { hasText: "Which plan and how many seats should Globex start with?" });
  await expect(row).toContainText("Question");
  await row.getByRole("link").click();
  await expect(reviewer).toHaveURL(new RegExp(`/runs/${runId}#approval-`));
  const card = reviewer.getByTestId("question-call_ask");
  await expect(card).toBeFocused();
  await expect(card).toContainText("Which plan and how many seats should Globex start with?");
  await card.getByLabel("Plan").selectOption("enterprise");
  await card.getByLabel("Seats").fill("0");
  await card.getByRole("button", { name: "Send answer" }).click();
  await expect(card.locator("#answer-call_ask-seats")).toHaveAttribute("aria-invalid", "true");
  await card.getByLabel("Seats").fill("40");
  await card.getByLabel(/Note/).fill("Paid yearly");
  await reviewer.screenshot({ path: path.join(shots, "question.png"), fullPage: true });
  await card.getByRole("button", { name: "Send answer" }).click();
  await expect(reviewer.getByTestId("question-status-call_ask")).toHaveText("answered");
  await expect(reviewer.getByTestId("run-state")).toHaveText("completed", { timeout: 20_000 });
  await expect(reviewer.getByTestId("assistant-text").last()).toHaveText("Set up Globex on enterprise with 40 seats; welcome sent.");
  // The answer as fields, as the form asked for them.
  const answer = card.getByRole("definition");
  await expect(answer).toHaveText(["Enterprise (annual contract)", "40 seats", "Paid yearly"]);
  expect(sql("SELECT id FROM OutboxMessage WHERE runId = ?", runId)).toHaveLength(1);
});

test("a rejection's reason is what the model answers with", async ({ browser }) => {
  const submitter = await as(browser, "submitter");
  const runId = await startFromForm(submitter, "refund-desk", { order_id: "ORD-5151", amount_cents: "70.00", reason: "Late delivery" });
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 15_000 });
  const reviewer = await as(browser, "reviewer");
  await reviewer.goto(`/runs/${runId}`);
  const refund = reviewer.getByTestId("approval-issue_refund");
  await refund.getByRole("button", { name: "Reject…" }).click();
  await refund.getByRole("button", { name: "Reject", exact: true }).click();
  await expect(refund.getByRole("alert")).toHaveText("A reason is required to reject");
  await refund.getByLabel("Reason (the model sees it)").fill("Customer already received a voucher");
  await refund.getByRole("button", { name: "Reject", exact: true }).click();
  await expect(reviewer.getByTestId("approval-status-issue_refund")).toHaveText("rejected");
  // The last decision resumes the run by itself.
  await reviewer.getByTestId("approval-notify_customer").getByRole("button", { name: "Approve", exact: true }).click();
  await expect(reviewer.getByTestId("run-state")).toHaveText("completed", { timeout: 15_000 });
  await expect(reviewer.getByTestId("assistant-text").last()).toContainText("Customer already received a voucher");
  expect(sql(`SELECT id FROM Refund WHERE runId = ?`, runId)).toHaveLength(0);
});

test("a 2-of-2 quorum: one reviewer is not enough, a second one resumes the run", async ({ browser }) => {
  const submitter = await as(browser, "submitter");
  const runId = await startFromForm(submitter, "deploy-bot", { service: "payments", version: "3.1.0", environment: "production" });
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 15_000 });
  const reviewer = await as(browser, "reviewer");
  await reviewer.goto(`/runs/${runId}`);
  const card = reviewer.getByTestId("approval-deploy");
  await expect(card.getByTestId("quorum")).toHaveText("0 of 2 approvals");
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(card.getByTestId("quorum")).toHaveText("1 of 2 approvals");
  await expect(reviewer.getByTestId("approval-status-deploy")).toHaveText("pending");
  // The same reviewer cannot count twice.
  const again = await reviewer.request.post(`/api/approvals/${runId}:2:call_deploy/decision`, { data: { decision: "approve" } });
  expect(again.status()).toBe(409);
  const admin = await as(browser, "admin");
  await admin.goto(`/runs/${runId}`);
  await admin.getByTestId("approval-deploy").getByRole("button", { name: "Approve", exact: true }).click();
  await expect(admin.getByTestId("run-state")).toHaveText("completed", { timeout: 15_000 });
  expect(sql(`SELECT id FROM Deployment WHERE runId = ?`, runId)).toHaveLength(1);
});

test("a submitter cannot approve, even through the API, and sees only their own runs", async ({ browser }) => {
  const submitter = await as(browser, "submitter");
  const runId = await startFromForm(submitter, "deploy-bot", { service: "search", version: "1.0.1", environment: "staging" });
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 15_000 });
  await expect(submitter.getByTestId("approval-deploy").getByRole("button")).toHaveCount(0);
  const res = await submitter.request.post(`/api/approvals/${runId}:2:call_deploy/decision`, { data: { decision: "approve" } });
  expect(res.status()).toBe(403);
  await submitter.goto("/approvals");
  await expect(submitter.getByRole("heading", { name: "403 — not allowed" })).toBeVisible();
  await submitter.goto("/runs");
  await expect(submitter.locator(`tr:has(a[href="/runs/${runId}"])`)).toBeVisible();
  // The admin's run is not visible to the submitter.
  const admin = await as(browser, "admin");
  const adminRun = await startFromForm(admin, "deploy-bot", { service: "admin-svc", version: "1.0.0", environment: "staging" });
  const other = await submitter.request.get(`/api/runs/${adminRun}`);
  expect(other.status()).toBe(404);
  await submitter.goto(`/runs/${adminRun}`);
  await expect(submitter.getByText("404")).toBeVisible();
});

test("model output with <script> and <img onerror> renders as text", async ({ browser }) => {
  const payload = `<script>window.__xss=1</script><img src=x onerror="window.__xss=2"><b>bold</b>`;
  const submitter = await as(browser, "submitter");
  const runId = await startFromForm(submitter, "support-writer", {
    customer: "Mallory <img src=y onerror=window.__xss=3>",
    question: payload,
  });
  const reviewer = await as(browser, "reviewer");
  for (const url of [`/runs/${runId}`, "/approvals"]) {
    await reviewer.goto(url);
    if (url === "/approvals")
      await expect(reviewer.getByTestId(`inbox-${runId}:1:call_reply`)).toContainText("<script>window.__xss=1</script>");
    else await expect(reviewer.getByTestId("assistant-text").first()).toContainText(payload);
    expect(await reviewer.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await reviewer.locator("main img, main b, main script").count()).toBe(0);
  }
  await reviewer.goto(`/runs/${runId}`);
  await reviewer.getByTestId("approval-send_reply").getByRole("button", { name: "Approve", exact: true }).click();
  await expect(reviewer.getByTestId("run-state")).toHaveText("completed", { timeout: 15_000 });
  await expect(reviewer.getByTestId("tool-result-send_reply")).toContainText("<script>");
  expect(await reviewer.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(await reviewer.locator("main img, main b, main script").count()).toBe(0);
});

test("REST API with tokens: start, list, approve, resume, read; a revoked token is 401", async ({ browser, playwright, baseURL }) => {
  const admin = await as(browser, "admin");
  await admin.goto("/admin/tokens");
  const create = async (name: string, role: string) => {
    await admin.getByLabel("Name").fill(name);
    await admin.getByLabel("Role").selectOption(role);
    await admin.getByRole("button", { name: "Create token" }).click();
    await expect(admin.getByTestId(`token-${name}`)).toBeVisible();
    return (await admin.getByTestId("new-token").textContent())!.trim();
  };
  const subToken = await create("ci-submitter", "submitter");
  const revToken = await create("ci-reviewer", "reviewer");
  expect(subToken).toMatch(/^afk_/);
  expect(revToken).not.toBe(subToken);

  const client = (token: string) => playwright.request.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
  const sub = await client(subToken);
  const rev = await client(revToken);

  const bad = await sub.post("/api/runs", { data: { agent: "refund-desk", input: { order_id: "ORD-77", amount_cents: -5, reason: "x" } } });
  expect(bad.status()).toBe(400);
  expect((await bad.json()).field).toMatch(/^input\./);
  const started = await sub.post("/api/runs", {
    data: { agent: "deploy-bot", input: { service: "api-gw", version: "5.0.0", environment: "staging" } },
  });
  expect(started.status()).toBe(201);
  const { id } = await started.json();
  await expect.poll(async () => (await (await sub.get(`/api/runs/${id}`)).json()).run.state, { timeout: 15_000 }).toBe("paused");
  expect((await sub.post(`/api/approvals/${id}:2:call_deploy/decision`, { data: { decision: "approve" } })).status()).toBe(403);

  const inbox = await (await rev.get("/api/approvals?agent=deploy-bot")).json();
  expect(inbox.approvals.map((a: { id: string }) => a.id)).toContain(`${id}:2:call_deploy`);
  const wrong = await rev.post(`/api/approvals/${id}:2:call_deploy/decision`, { data: { decision: "maybe" } });
  expect(wrong.status()).toBe(400);
  expect((await wrong.json()).field).toBe("decision");
  const ok = await rev.post(`/api/approvals/${id}:2:call_deploy/decision`, {
    data: { decision: "approve", args: { service: "api-gw", version: "5.0.1", environment: "staging" } },
  });
  expect(ok.status()).toBe(200);
  // deploy-bot resumes on its own once decided.
  await expect.poll(async () => (await (await sub.get(`/api/runs/${id}`)).json()).run.state, { timeout: 15_000 }).toBe("completed");
  expect(sql<{ version: string }>(`SELECT version FROM Deployment WHERE runId = ?`, id)).toEqual([{ version: "5.0.1" }]);
  const cps = await (await rev.get(`/api/runs/${id}/checkpoints?take=5`)).json();
  expect(cps.checkpoints).toHaveLength(5);
  expect(cps.nextCursor).toBeTruthy();
  const listed = await (await sub.get("/api/runs?agent=deploy-bot")).json();
  expect(listed.runs.map((r: { id: string }) => r.id)).toContain(id);

  const doc = await (await sub.get("/api/openapi.json")).json();
  expect(Object.keys(doc.paths)).toContain("/api/approvals/{approvalId}/decision");

  await admin.getByRole("button", { name: "Revoke ci-submitter" }).click();
  await expect(admin.getByTestId("token-ci-submitter")).toContainText("revoked");
  const revoked = await sub.get("/api/runs");
  expect(revoked.status()).toBe(401);
  expect(await revoked.json()).toEqual({ error: "Invalid or revoked API token" });

  await admin.goto(`/audit?targetId=${id}`);
  await expect(admin.getByTestId("audit-approval.edit_approve")).toBeVisible();
  await expect(admin.getByTestId("audit-run.start")).toContainText("token:ci-submitter");
});

test("a run whose snapshot is corrupt shows AgentCheckpointCorruptionError and its key, and offers nothing that would run it", async ({
  browser,
}) => {
  const submitter = await as(browser, "submitter");
  const res = await submitter.request.post("/api/runs", {
    data: { agent: "deploy-bot", input: { service: "broken", version: "1.0.0", environment: "staging" } },
  });
  const { id } = await res.json();
  await expect
    .poll(async () => (await (await submitter.request.get(`/api/runs/${id}`)).json()).run.state, { timeout: 15_000 })
    .toBe("paused");
  const db = new Database(dbFile);
  try {
    db.prepare(`UPDATE StateEntry SET value = ? WHERE threadId = ? AND key = ?`).run("{not json", id, keys.runtime(id));
  } finally {
    db.close();
  }
  const operator = await as(browser, "operator");
  await operator.goto(`/runs/${id}`);
  const alert = operator.getByRole("alert").filter({ hasText: "AgentCheckpointCorruptionError" });
  await expect(alert).toBeVisible();
  await expect(operator.getByTestId("corrupt-key")).toHaveText(`key: runtime:${id}`);
  await expect(operator.getByRole("button", { name: "Resume" })).toBeDisabled();
  await expect(operator.getByRole("button", { name: "Retry" })).toHaveCount(0);
  const reviewer = await as(browser, "reviewer");
  await reviewer.goto(`/runs/${id}`);
  await expect(reviewer.getByRole("alert").filter({ hasText: "AgentCheckpointCorruptionError" })).toBeVisible();
  await expect(reviewer.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  await expect(reviewer.getByRole("button", { name: "Resume" })).toBeDisabled();
});

test("one corrupt approval among many: the inbox lists the rest and marks it, its run page says so, the API answers 409 with the key", async ({
  browser,
}) => {
  const submitter = await as(browser, "submitter");
  const ids: string[] = [];
  for (const service of ["good-a", "bad", "good-b"]) {
    const res = await submitter.request.post("/api/runs", {
      data: { agent: "deploy-bot", input: { service, version: "1.0.0", environment: "staging" } },
    });
    ids.push((await res.json()).id);
  }
  for (const id of ids)
    await expect
      .poll(async () => (await (await submitter.request.get(`/api/runs/${id}`)).json()).run.state, { timeout: 15_000 })
      .toBe("paused");
  const bad = ids[1];
  const key = keys.approval(bad, 2, "call_deploy");
  const db = new Database(dbFile);
  try {
    expect(
      db
        .prepare(`UPDATE Approval SET record = ? WHERE threadId = ? AND id = ?`)
        .run('{"schema_version":1,"status":"pending"', bad, `${bad}:2:call_deploy`).changes,
    ).toBe(1);
  } finally {
    db.close();
  }
  const reviewer = await as(browser, "reviewer");
  const errors: string[] = [];
  reviewer.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await reviewer.goto("/approvals");
  await expect(reviewer.getByTestId(`inbox-${ids[0]}:2:call_deploy`)).toBeVisible();
  await expect(reviewer.getByTestId(`inbox-${ids[2]}:2:call_deploy`)).toBeVisible();
  await expect(reviewer.getByTestId(`inbox-${bad}:2:call_deploy`)).toHaveCount(0);
  await expect(reviewer.getByTestId(`inbox-corrupt-${key}`)).toContainText("not decidable");
  await expect(reviewer.getByRole("status", { name: "Unreadable approvals" })).toContainText("1 approval record could not be read");
  await reviewer.screenshot({ path: path.join(shots, "inbox-corrupt.png"), fullPage: true });
  await reviewer.goto(`/runs/${bad}`);
  await expect(reviewer.getByRole("alert").filter({ hasText: "AgentCheckpointCorruptionError" })).toBeVisible();
  await expect(reviewer.getByTestId("corrupt-key")).toHaveText(`key: ${key}`);
  await expect(reviewer.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  const decision = await reviewer.request.post(`/api/approvals/${bad}:2:call_deploy/decision`, { data: { decision: "approve" } });
  expect(decision.status()).toBe(409);
  expect(await decision.json()).toMatchObject({ error: "AgentCheckpointCorruptionError", key });
  // The good runs are decidable as ever.
  await reviewer.goto(`/runs/${ids[0]}`);
  await reviewer.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(reviewer.getByTestId("run-state")).toHaveText("completed", { timeout: 15_000 });
  expect(errors).toEqual([]);
});

test("a page prefetches none of its links (each would be a server render through the proxy); a click still navigates in place", async ({
  browser,
  baseURL,
}) => {
  const sub = await apiSession(baseURL!, "submitter");
  const started = await sub.post("/api/runs", { data: { agent: "order-status", input: { order_id: "ORD-1001" } } });
  expect(started.status(), await started.text()).toBe(201);
  const runId = (await started.json()).id as string;
  await sub.dispose();
  const page = await as(browser, "admin");
  const prefetches: string[] = [];
  page.on("request", (r) => {
    if (r.headers()["next-router-prefetch"]) prefetches.push(r.url());
  });
  for (const path of ["/approvals", "/runs", "/audit", `/runs/${runId}`]) {
    await page.goto(path);
    await expect(page.getByTestId("whoami")).toBeVisible();
    await page.waitForLoadState("networkidle");
  }
  // Links were on screen (the navigation's, the run's timeline), each hovered too: nothing was fetched ahead.
  for (const link of await page.getByRole("link").all()) await link.hover();
  expect(prefetches).toEqual([]);
  await page.evaluate(() => Object.assign(window, { stillThisDocument: true }));
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runs", exact: true }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.getByRole("heading", { level: 1, name: "Runs" })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { stillThisDocument?: boolean }).stillThisDocument)).toBe(true);
  await page.context().close();
});
