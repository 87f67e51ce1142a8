// Routing in Chromium: an admin adds a reviewer in group ops; a large refund is routed to finance. The ops
// reviewer sees it read-only below what they may decide (no checkbox, keys skip it, no buttons on its card;
// the API answers 403) and decides the notification; the seeded reviewer, in finance, approves the refund
// and the run completes. Then the inbox pages past its first 200 by cursor.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { type Browser, type Page, expect, test } from "@playwright/test";
import { FIRST_ROWS } from "../app/approvals/first-screen";
import { approvalAnchor, approvalId } from "../lib/runner/ids";
import { DEMO_PASSWORD, apiSession, signIn, signInAs, startFromForm, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

const shots = path.resolve(import.meta.dirname, "../public/screenshots");

async function page(browser: Browser, width = 1280): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  return ctx.newPage();
}

const state = async (p: Page, id: string) => (await (await p.request.get(`/api/runs/${id}`)).json()).run.state as string;

test("a routed approval: read-only for a reviewer outside its group (403 from the API), decided by its group", async ({ browser }) => {
  test.setTimeout(120_000);
  const tag = randomBytes(3).toString("hex");
  const email = `ops-${tag}@example.com`;
  const errors: string[] = [];

  const admin = await page(browser);
  await signInAs(admin, "admin");
  await admin.goto("/admin/users");
  await expect(admin.getByTestId("user-reviewer@example.com").getByLabel("Groups of reviewer@example.com")).toHaveValue("finance");
  const form = admin.getByRole("form", { name: "Add user" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Name").fill("Ops reviewer");
  await form.getByLabel("Role").selectOption("reviewer");
  await form.getByLabel("Initial password").fill(DEMO_PASSWORD);
  await form.getByLabel(/^Groups/).fill("Ops, not a group!");
  await form.getByRole("button", { name: "Add user" }).click();
  await expect(form.getByText("A group name is lowercase letters, digits and dashes (at most 40)")).toBeVisible();
  await form.getByLabel(/^Groups/).fill("ops");
  await form.getByRole("button", { name: "Add user" }).click();
  await expect(form.getByRole("status")).toHaveText(`Added ${email}`);
  await expect(admin.getByTestId(`user-${email}`).getByLabel(`Groups of ${email}`)).toHaveValue("ops");

  const submitter = await page(browser);
  await signInAs(submitter, "submitter");
  const id = await startFromForm(submitter, "refund-desk", { order_id: "ORD-1001", amount_cents: "2500.00", reason: `Lost ${tag}` });
  await expect.poll(() => state(submitter, id), { timeout: 20_000 }).toBe("paused");
  const refund = approvalId(id, 2, "call_refund");
  const notify = approvalId(id, 2, "call_notify");

  const ops = await page(browser);
  ops.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await signIn(ops, email);
  await expect(ops.getByTestId("whoami")).toContainText(email);
  await ops.goto("/approvals");
  const refundRow = ops.getByTestId(`inbox-${refund}`);
  await expect(refundRow).toContainText("read-only · for finance");
  await expect(refundRow.getByRole("checkbox")).toHaveCount(0);
  await expect(ops.getByRole("columnheader", { name: "Routed to groups you are not in: read-only" })).toBeVisible();
  // What ops may decide comes first: the notification is above the read-only section.
  const rows = ops.locator("tbody tr[data-testid^=inbox-]");
  const order = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-testid")));
  expect(order.indexOf(`inbox-${notify}`)).toBeLessThan(order.indexOf(`inbox-${refund}`));
  // Keys skip what ops may not decide: with the cursor on the refund, `a` sends nothing.
  await refundRow.getByRole("cell").nth(1).click();
  await expect(refundRow).toHaveAttribute("aria-current", "true");
  await ops.keyboard.press("a");
  await expect(ops.getByTestId("bulk-result")).toHaveCount(0);
  await ops.getByTestId(`inbox-${notify}`).getByRole("cell").nth(1).click();
  await ops.keyboard.press("a");
  await expect(ops.getByTestId("bulk-result")).toHaveText("1 decided");

  // The run page: the refund's card says why there is nothing to press; the API refuses a decision.
  await ops.goto(`/runs/${id}#${approvalAnchor(refund)}`);
  const card = ops.getByTestId("approval-issue_refund");
  await expect(card.getByTestId("routed-to")).toHaveText(
    "Routed to finance: you are in none of these groups, so you may read it but not decide it.",
  );
  await expect(card.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  const refused = await ops.request.post(`/api/approvals/${encodeURIComponent(refund)}/decision`, { data: { decision: "approve" } });
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error).toBe("This approval is routed to finance; you are in none of them");
  await ops.screenshot({ path: path.join(shots, "routed-read-only.png"), fullPage: true });

  // The seeded reviewer is in finance: the refund is theirs to decide.
  const finance = await page(browser);
  finance.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await signInAs(finance, "reviewer");
  await finance.goto("/approvals");
  await expect(finance.getByTestId(`inbox-${refund}`)).toContainText("for finance");
  await expect(finance.getByTestId(`inbox-${refund}`).getByRole("checkbox")).toHaveCount(1);
  await finance.goto(`/runs/${id}`);
  const fcard = finance.getByTestId("approval-issue_refund");
  await expect(fcard.getByTestId("routed-to")).toHaveText("Routed to finance");
  await fcard.getByRole("button", { name: "Approve", exact: true }).click();
  // €2,500.00 is above refund-large's confirmAbove (€1,000.00): one more tap, still one decision.
  await fcard.getByTestId("confirm-approve").getByRole("button", { name: "Yes, approve" }).click();
  await expect(finance.getByTestId("approval-status-issue_refund")).toHaveText("approved");
  // finance's decision was the step's last: the run resumes by itself.
  await expect(finance.getByTestId("run-state")).toHaveText("completed", { timeout: 20_000 });
  expect(errors).toEqual([]);
});

test("the inbox pages past its first 200 by cursor, and back", async ({ browser, playwright, baseURL }) => {
  // 205 approvals, parked by one external run through the runtime protocol in a few requests (starting and
  // pausing 205 runs of our own, one request each, took minutes on two cores); the last one alone after
  // the others, so that it is the newest: the one past the first page.
  const tag = randomBytes(3).toString("hex");
  const admin = await apiSession(baseURL!, "admin");
  const created = await admin.post("/api/admin/tokens", { data: { name: `pages-${tag}`, role: "runtime" } });
  expect(created.status()).toBe(201);
  const runtime = await playwright.request.newContext({
    baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${(await created.json()).token}` },
  });
  const registered = await runtime.post("/api/v1/runtime/runs", {
    data: { externalId: `pages-${tag}`, framework: "e2e", agent: "pages-bot", actsFor: "submitter@example.com" },
  });
  expect(registered.status()).toBe(200);
  const runId = (await registered.json()).id as string;
  const park = async (from: number, to: number): Promise<string[]> => {
    const interrupts = Array.from({ length: to - from }, (_, k) => ({
      id: `call_deploy_${from + k}`,
      // One of them another tool, far past the first screen: the filter offers it once the page has arrived.
      action: {
        name: from + k === 100 ? "rollback" : "deploy",
        args: { service: `pages-${tag}`, version: `1.0.${from + k}`, environment: "production" },
      },
    }));
    const res = await runtime.post(`/api/v1/runtime/runs/${runId}/interrupts`, { data: { batchId: `pages-${from}`, interrupts } });
    expect(res.status()).toBe(200);
    const body = await res.json();
    expect(body.state).toBe("paused");
    return body.interrupts.map((i: { approvalId: string }) => i.approvalId);
  };
  try {
    for (const [from, to] of [
      [0, 100],
      [100, 200],
      [200, 204],
    ])
      await park(from, to);
    const [last] = await park(204, 205);
    const reviewer = await page(browser);
    const errors: string[] = [];
    reviewer.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await signInAs(reviewer, "reviewer");
    await reviewer.goto("/approvals");
    await expect(reviewer.getByText(/^200 waiting, more on the next page$/)).toBeVisible();
    // The page's HTML carries its first screen; the browser loads the rest of the 200 once hydrated.
    const html = await (await reviewer.request.get("/approvals")).text();
    expect(html.match(/<tr [^>]*data-testid="inbox-/g)).toHaveLength(FIRST_ROWS);
    await expect(reviewer.locator('tr[data-testid^="inbox-"]')).toHaveCount(200);
    await expect(reviewer.locator('#tools option[value="rollback"]')).toHaveCount(1);
    await expect(reviewer.getByText(/^200 waiting, more on the next page$/)).toBeVisible();
    await expect(reviewer.getByTestId(`inbox-${last}`)).toHaveCount(0);
    await reviewer.getByRole("button", { name: "Next page →" }).click();
    await expect(reviewer.getByTestId(`inbox-${last}`)).toBeVisible();
    await expect(reviewer.getByText(/waiting on this page$/)).toBeVisible();
    await reviewer.getByRole("button", { name: "← Previous page" }).click();
    await expect(reviewer.getByText(/^200 waiting, more on the next page$/)).toBeVisible();
    expect(errors).toEqual([]);
  } finally {
    // The other specs find their approvals on the first page: cancel the run, which closes its interrupts.
    const operator = await apiSession(baseURL!, "operator");
    const r = await operator.post(`/api/runs/${runId}/cancel`);
    expect([200, 202, 409]).toContain(r.status());
  }
});
