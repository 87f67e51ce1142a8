// The fast inbox in Chromium: keys (? help, x select, a approve, r reject, o open, e edit in the preview) and a bulk approve of
// one tool's approvals where one of them fails (the admin started that run: separation of duties) and the
// result names it while the others are decided, each audited on its own.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { type Browser, type Page, expect, test } from "@playwright/test";
import { signInAs, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

const shots = path.resolve(import.meta.dirname, "../public/screenshots");

async function as(browser: Browser, role: string): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await signInAs(page, role);
  return page;
}

async function start(page: Page, customer: string): Promise<string> {
  const res = await page.request.post("/api/runs", {
    data: { agent: "support-writer", input: { customer, question: "Where is my parcel?" } },
  });
  expect(res.status()).toBe(201);
  return (await res.json()).id;
}

async function pausedAll(page: Page, ids: string[]) {
  for (const id of ids)
    await expect.poll(async () => (await (await page.request.get(`/api/runs/${id}`)).json()).run.state, { timeout: 20_000 }).toBe("paused");
}

test("keyboard and bulk: select one tool's approvals, approve them together, a failure is named; r rejects; o opens", async ({
  browser,
}) => {
  const tag = randomBytes(3).toString("hex");
  const submitter = await as(browser, "submitter");
  const admin = await as(browser, "admin");
  const a = await start(submitter, `Keys A ${tag}`);
  const b = await start(submitter, `Keys B ${tag}`);
  const mine = await start(admin, `Keys C ${tag}`);
  const d = await start(submitter, `Keys D ${tag}`);
  await pausedAll(admin, [a, b, mine, d]);
  const errors: string[] = [];
  admin.on("console", (m) => m.type() === "error" && errors.push(m.text()));

  await admin.goto("/approvals");
  await admin.getByLabel("Agent").selectOption("support-writer");
  const row = (p: Page, name: string) => p.locator("tr", { hasText: `Keys ${name} ${tag}` });
  await expect(row(admin, "A")).toBeVisible();

  await admin.keyboard.press("?");
  await expect(admin.getByRole("region", { name: "Keyboard shortcuts" })).toContainText("next / previous approval");
  await admin.keyboard.press("?");
  await expect(admin.getByRole("region", { name: "Keyboard shortcuts" })).toBeHidden();

  // x selects the current row; checkboxes add the others.
  await row(admin, "A").locator("td").nth(1).click();
  await expect(row(admin, "A")).toHaveAttribute("aria-current", "true");
  await admin.keyboard.press("x");
  await row(admin, "B").getByRole("checkbox").check();
  await row(admin, "C").getByRole("checkbox").check();
  await expect(admin.getByTestId("selection")).toHaveText("3 selected · send_reply");
  await admin.screenshot({ path: path.join(shots, "inbox-bulk.png"), fullPage: true });
  await admin.keyboard.press("a");
  const result = admin.getByTestId("bulk-result");
  await expect(result).toContainText("2 decided; 1 failed:");
  await expect(result).toContainText(`${mine}:1:call_reply`);
  await expect(result).toContainText("You may not decide an approval for a run you started");
  await expect(row(admin, "A")).toBeHidden();
  await expect(row(admin, "B")).toBeHidden();
  await expect(row(admin, "C")).toBeVisible();
  await pausedAll(admin, [mine]);
  for (const id of [a, b])
    await expect
      .poll(async () => (await (await admin.request.get(`/api/runs/${id}`)).json()).run.state, { timeout: 20_000 })
      .toBe("completed");
  // Each decision of the batch is audited on its own; the refused one is not.
  for (const [id, n] of [
    [a, 1],
    [b, 1],
    [mine, 0],
  ] as const) {
    const audit = await (await admin.request.get(`/api/audit?action=approval.approve&targetId=${id}`)).json();
    expect(audit.events).toHaveLength(n);
  }

  // A reviewer rejects the admin's run with r and a reason, then opens D with o.
  const reviewer = await as(browser, "reviewer");
  reviewer.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await reviewer.goto("/approvals");
  await reviewer.getByLabel("Agent").selectOption("support-writer");
  await row(reviewer, "C").locator("td").nth(1).click();
  await reviewer.keyboard.press("r");
  const reason = reviewer.getByLabel(/Reason for rejecting 1/);
  await expect(reason).toBeFocused();
  await reason.fill("Not from the admin account");
  await reason.press("Enter");
  await expect(reviewer.getByTestId("bulk-result")).toHaveText("1 decided");
  await expect(row(reviewer, "C")).toBeHidden();
  await row(reviewer, "D").locator("td").nth(1).click();
  await reviewer.keyboard.press("o");
  await expect(reviewer).toHaveURL(new RegExp(`/runs/${d}#approval-`));
  await expect(reviewer.getByTestId("approval-send_reply")).toBeVisible();
  await expect(reviewer.getByTestId("approval-send_reply").getByRole("button", { name: "Edit arguments…" })).toHaveAttribute(
    "aria-expanded",
    "false",
  );
  // e opens the same card's argument editor in the preview pane, without leaving the inbox.
  await reviewer.goto("/approvals");
  await reviewer.getByLabel("Agent").selectOption("support-writer");
  await row(reviewer, "D").locator("td").nth(1).click();
  const card = reviewer.getByTestId("preview").getByTestId("approval-send_reply");
  await expect(card).toBeVisible();
  await reviewer.keyboard.press("e");
  await expect(reviewer).toHaveURL(/\/approvals$/);
  await expect(card.getByRole("button", { name: "Edit arguments…" })).toHaveAttribute("aria-expanded", "true");
  await expect(card.getByRole("button", { name: "Approve with these arguments" })).toBeVisible();
  // Decisions are server actions: a refused one is an answer (shown above), not a failed request, so the
  // console has no error at all.
  expect(errors).toEqual([]);
});

test("a and the bulk Approve ask first for a request above its rule's confirmAbove; x says why a row of another tool stays out", async ({
  browser,
}) => {
  const tag = randomBytes(3).toString("hex");
  const submitter = await as(browser, "submitter");
  const res = await submitter.request.post("/api/runs", {
    data: { agent: "refund-desk", input: { order_id: "ORD-1001", amount_cents: 150_000, reason: `Keys big ${tag}` } },
  });
  expect(res.status()).toBe(201);
  const { id } = await res.json();
  await pausedAll(submitter, [id]);
  const reviewer = await as(browser, "reviewer");
  const errors: string[] = [];
  reviewer.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await reviewer.goto("/approvals");
  await reviewer.getByLabel("Agent").selectOption("refund-desk");
  const refund = reviewer.locator("tr", { hasText: `Keys big ${tag}` });
  const notify = reviewer.locator("tr", { hasText: id.slice(0, 8) }).filter({ hasText: "notify_customer" });
  const approved = async () =>
    (await (await reviewer.request.get(`/api/audit?action=approval.approve&targetId=${id}`)).json()).events.length;

  // a on the €1,500 refund asks; Escape takes it back and nothing is decided.
  await refund.locator("td").nth(1).click();
  await reviewer.keyboard.press("a");
  const ask = reviewer.getByRole("region", { name: "Decide selected" }).getByTestId("confirm-approve");
  await expect(ask).toContainText("€1,500.00");
  await expect(ask.getByRole("button", { name: "Yes, approve 1" })).toBeFocused();
  await reviewer.keyboard.press("Escape");
  await expect(ask).toBeHidden();
  expect(await approved()).toBe(0);

  // x selects it; x on the run's notify_customer row leaves that out and says why.
  await reviewer.keyboard.press("x");
  await notify.locator("td").nth(1).click();
  await reviewer.keyboard.press("x");
  await expect(reviewer.getByTestId("inbox-notice")).toContainText("Only approvals of one tool are selected together");
  await expect(reviewer.getByTestId("selection")).toHaveText("1 selected · issue_refund");

  // The bulk Approve asks too; yes decides it, once.
  await reviewer.getByRole("button", { name: "Approve 1", exact: true }).click();
  await expect(ask).toBeVisible();
  await reviewer.keyboard.press("Enter");
  await expect(reviewer.getByTestId("bulk-result")).toHaveText("1 decided");
  await expect(refund).toBeHidden();
  expect(await approved()).toBe(1);
  expect(errors).toEqual([]);
});
