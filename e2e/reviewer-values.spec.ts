// Issue 27 for reviewers and submitters: values as people read them (money from the schema's .meta()),
// the inbox as cards on a phone with the decision one tap away, the start form flagging every field at
// once, and opening on the agent this person last started.
import { randomBytes } from "node:crypto";
import { type Browser, type Page, expect, test } from "@playwright/test";
import { signInAs, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

async function as(browser: Browser, role: string, width = 1280, dark = false): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: dark ? "dark" : "light" });
  const page = await ctx.newPage();
  await signInAs(page, role);
  return page;
}

/** Console errors and warnings of a page, collected from now on. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (m) => (m.type() === "error" || m.type() === "warning") && problems.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  return problems;
}

async function started(page: Page, agent: string, input: Record<string, unknown>) {
  const res = await page.request.post("/api/runs", { data: { agent, input } });
  expect(res.status()).toBe(201);
  const { id } = await res.json();
  await expect.poll(async () => (await (await page.request.get(`/api/runs/${id}`)).json()).run.state, { timeout: 20_000 }).toBe("paused");
  return id as string;
}

test("the start form flags every invalid field at once, in words, focuses the first, and opens on the last agent started", async ({
  browser,
}) => {
  const sub = await as(browser, "submitter", 390);
  const problems = watch(sub);
  await sub.goto("/runs/new");
  await sub.getByLabel("Agent").selectOption("refund-desk");
  await expect(sub.getByText("Fields marked * are required.")).toBeVisible();
  await expect(sub.locator("label[for=input-amount_cents]")).toContainText("Amount (EUR) *");
  await expect(sub.locator("#input-amount_cents-hint")).toHaveText("What goes back to the customer, at most 100,000.00");
  await sub.getByRole("button", { name: "Start run" }).click();
  for (const f of ["order_id", "amount_cents", "reason"]) {
    await expect(sub.locator(`#input-${f}`)).toHaveAttribute("aria-invalid", "true");
    await expect(sub.locator(`#input-${f}-error`)).toHaveText("Required");
    await expect(sub.locator(`#input-${f}`)).toHaveClass(/border-rose-600/);
  }
  await expect(sub.locator("#input-order_id")).toBeFocused();
  await expect(sub.getByTestId("form-problems")).toHaveText("3 fields need attention.");
  // Money typed in major units; what is not an amount is named, not sent.
  await sub.locator("#input-order_id").fill("ORD-1001");
  await sub.locator("#input-amount_cents").fill("12.345");
  await sub.locator("#input-reason").fill("Arrived broken");
  await sub.getByRole("button", { name: "Start run" }).click();
  await expect(sub.locator("#input-amount_cents-error")).toHaveText("Enter an amount such as 125.00");
  await expect(sub.locator("#input-amount_cents")).toBeFocused();
  await expect(sub.locator("#input-order_id")).toHaveAttribute("aria-invalid", "false");
  await sub.locator("#input-amount_cents").fill("125");
  await sub.getByRole("button", { name: "Start run" }).click();
  await expect(sub).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const id = sub.url().split("/runs/")[1];
  // The run's input as stored (minor units), and its first user message one field a line.
  const view = await (await sub.request.get(`/api/runs/${id}`)).json();
  expect(view.run.input).toMatchObject({ amount_cents: 12500 });
  await expect(sub.getByText("Amount: €125.00 (amount_cents: 12500)")).toBeVisible({ timeout: 15_000 });
  // The next form opens on refund-desk, the agent this person last started (rendered so by the server).
  const html = await (await sub.request.get("/runs/new")).text();
  expect(html).toMatch(/<option value="refund-desk" selected="">/);
  await sub.goto("/runs/new");
  await expect(sub.getByLabel("Agent")).toHaveValue("refund-desk");
  expect(problems).toEqual([]);
});

for (const dark of [false, true])
  test(`the inbox on a phone${dark ? " (dark)" : ""}: cards with the arguments as people read them, nothing scrolls sideways, approve in one tap`, async ({
    browser,
  }) => {
    const tag = randomBytes(3).toString("hex");
    const submitter = await as(browser, "submitter");
    const id = await started(submitter, "refund-desk", { order_id: "ORD-1001", amount_cents: 12500, reason: `Phone ${tag}` });
    const rev = await as(browser, "reviewer", 390, dark);
    const problems = watch(rev);
    await rev.goto("/approvals");
    const card = rev.getByTestId(`inbox-${id}:2:call_refund`);
    await expect(card).toContainText("Amount: €125.00");
    await expect(card).toContainText("refund-desk");
    await expect(card).toContainText("Waiting");
    await expect(card).toContainText("Deadline");
    // A card, not a clipped table row: as wide as the page, no cell wider than its box, no sideways scroll.
    const box = await card.boundingBox();
    expect(box?.width).toBeGreaterThan(300);
    const overflow = await rev.evaluate(() => ({
      page: document.documentElement.scrollWidth - window.innerWidth,
      boxes: [...document.querySelectorAll("main td, main th, main .card")]
        .filter((e) => getComputedStyle(e).display !== "none" && e.scrollWidth > e.clientWidth + 1)
        .map((e) => e.outerHTML.slice(0, 120)),
    }));
    expect(overflow).toEqual({ page: 0, boxes: [] });
    await card.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(rev.getByTestId("bulk-result")).toHaveText("1 decided");
    await expect(card).toHaveCount(0);
    // The other call of the run is rejected from its card, with a reason.
    const notify = rev.getByTestId(`inbox-${id}:2:call_notify`);
    await notify.getByRole("button", { name: "Reject…" }).click();
    await notify.getByLabel("Reason for rejecting (the model sees it)").fill("We phone them instead");
    await notify.getByRole("button", { name: "Reject", exact: true }).click();
    await expect(notify).toHaveCount(0);
    expect(problems).toEqual([]);
  });

test("the inbox at desktop width: durations, agents and deadlines on one line, the filters the same height", async ({ browser }) => {
  const submitter = await as(browser, "submitter");
  const id = await started(submitter, "refund-desk", { order_id: "ORD-1001", amount_cents: 9000, reason: "Desk" });
  const rev = await as(browser, "reviewer");
  await rev.goto("/approvals");
  const row = rev.getByTestId(`inbox-${id}:2:call_refund`);
  await expect(row).toContainText("Amount: €90.00");
  // The deadline is the preview pane's beside the list (app/approvals/preview-pane.tsx).
  await expect(rev.getByTestId("preview")).toContainText("deadline");
  for (const cell of [1, 5]) {
    const td = row.locator("td").nth(cell);
    const lines = await td.evaluate((e) => {
      const r = document.createRange();
      r.selectNodeContents(e);
      return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size;
    });
    expect(lines, `cell ${cell} on one line`).toBe(1);
  }
  const h = async (sel: string) => (await rev.locator(sel).boundingBox())?.height;
  expect(await h("#f-agent")).toBe(await h("#f-tool"));
});
