// A reviewer's day in the inbox's preview pane, at 1280 px and at 390 px: four requests of three runs, three
// decided with the keyboard (a refund and its customer message with `a`, a reply rejected with `r` and a
// reason) and a question answered by tap, each run resuming by itself, and the reviewer never leaves the
// inbox. The pane shows what the refund will do in words, the order's total that the lookup returned and
// a warning that the refund is more; deciding hands the pane to the next request. axe (every rule, every
// impact) finds nothing on the inbox with its pane, light and dark; the browser's console stays empty.
import { randomBytes } from "node:crypto";
import { AxeBuilder } from "@axe-core/playwright";
import { type Browser, type Page, expect, test } from "@playwright/test";
import { signIn, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

type Viewport = { width: number; height: number };

async function as(browser: Browser, role: string, viewport: Viewport, dark = false): Promise<Page> {
  const ctx = await browser.newContext({ viewport, colorScheme: dark ? "dark" : "light", hasTouch: viewport.width < 640 });
  const page = await ctx.newPage();
  // Signing in hashes a password: on a busy machine it takes longer than an assertion's default.
  await signIn(page, `${role}@example.com`);
  await expect(page.getByTestId("whoami")).toContainText(`${role}@example.com`, { timeout: 30_000 });
  return page;
}

async function start(page: Page, agent: string, input: Record<string, unknown>): Promise<string> {
  const res = await page.request.post("/api/runs", { data: { agent, input } });
  expect(res.status()).toBe(201);
  return (await res.json()).id;
}

const stateOf = async (page: Page, id: string) => (await (await page.request.get(`/api/runs/${id}`)).json()).run.state;

async function axe(page: Page, what: string) {
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const found = violations.map((v) => `${what}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(found, found.join("\n")).toEqual([]);
}

for (const viewport of [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`a reviewer's day at ${viewport.width} px: decide in the preview pane, each run resumes by itself`, async ({ browser }) => {
    test.setTimeout(180_000);
    const tag = randomBytes(3).toString("hex");
    const submitter = await as(browser, "submitter", { width: 1280, height: 900 });
    // ORD-1001's total is €79.19 (lib/agents/orders.ts): a refund of €90.00 is more.
    const refund = await start(submitter, "refund-desk", { order_id: "ORD-1001", amount_cents: 9000, reason: `Day ${tag}` });
    const reply = await start(submitter, "support-writer", { customer: `Day ${tag}`, question: "Where is my parcel?" });
    const question = await start(submitter, "account-setup", { company: `Day ${tag}` });
    for (const id of [refund, reply, question]) await expect.poll(() => stateOf(submitter, id), { timeout: 20_000 }).toBe("paused");

    const reviewer = await as(browser, "reviewer", viewport);
    const problems: string[] = [];
    reviewer.on("console", (m) => (m.type() === "error" || m.type() === "warning") && problems.push(`${m.type()}: ${m.text()}`));
    // Every page the reviewer's tab shows after signing in: the inbox only.
    const visited: string[] = [];
    reviewer.on("framenavigated", (f) => f === reviewer.mainFrame() && visited.push(new URL(f.url()).pathname));
    await reviewer.goto("/approvals");
    const pane = reviewer.getByTestId("preview");
    const current = reviewer.locator('tr[aria-current="true"]');
    // j until the current request is the one asked for (the pane follows the cursor).
    const moveTo = async (text: string) => {
      for (let i = 0; i < 60 && !((await current.textContent()) ?? "").includes(text); i++) await reviewer.keyboard.press("j");
      await expect(current).toContainText(text);
    };

    // The pane is the browser's (it loads once hydrated): the filters answer from then on.
    await expect(pane.getByTestId("preview-reason")).toBeVisible({ timeout: 30_000 });
    // The refund: what it will do in words, why it waits, the order's total beside it and the warning.
    await reviewer.getByLabel("Agent").selectOption("refund-desk");
    await moveTo(`Day ${tag}`);
    await expect(pane.getByRole("heading", { level: 2 })).toContainText("issue_refund");
    await expect(pane.getByTestId("preview-reason")).toHaveText("Why it waits: Refund above the approval threshold");
    const will = pane.getByRole("definition").filter({ hasText: "€90.00" });
    await expect(will).toBeVisible();
    await expect(pane.getByTestId("related-lookup_order")).toContainText("€79.19");
    await expect(pane.getByTestId("preview-checks")).toContainText(
      "Amount €90.00 is more than the total €79.19 that lookup_order returned",
    );
    await expect(pane.getByTestId("preview-excerpt")).toContainText("Refunding 90.00 and notifying the customer.");
    await expect(pane.getByText('"amount_cents": 9000')).toBeHidden();
    await axe(reviewer, `inbox with a refund in the pane at ${viewport.width}`);
    // Decide with one key; the pane moves on to the next request: the same run's message to the customer.
    await reviewer.keyboard.press("a");
    await expect(reviewer.getByTestId("bulk-result")).toHaveText("1 decided");
    await expect(pane.getByRole("heading", { level: 2 })).toContainText("notify_customer");
    await expect(current).toHaveAttribute("data-testid", `inbox-${refund}:2:call_notify`);
    await expect(pane.getByTestId("related-lookup_order")).toBeVisible();
    await reviewer.keyboard.press("a");
    await expect(reviewer.getByTestId("bulk-result")).toHaveText("1 decided");
    await expect.poll(() => stateOf(reviewer, refund), { timeout: 20_000 }).toBe("completed");

    // The reply: rejected with r and a reason typed, Enter.
    await reviewer.getByLabel("Agent").selectOption("support-writer");
    await moveTo(`Day ${tag}`);
    await expect(pane.getByRole("heading", { level: 2 })).toContainText("send_reply");
    await reviewer.keyboard.press("r");
    const reason = reviewer.getByLabel(/Reason for rejecting 1/);
    await expect(reason).toBeFocused();
    await reviewer.keyboard.type("Ask for the order number first");
    await reviewer.keyboard.press("Enter");
    await expect(reviewer.getByTestId("bulk-result")).toHaveText("1 decided");
    await expect.poll(() => stateOf(reviewer, reply), { timeout: 20_000 }).toBe("completed");

    // The question, answered by tap in the pane: an empty answer is refused once, in words, under its field.
    await reviewer.getByLabel("Agent").selectOption("account-setup");
    await moveTo(`Day ${tag}`);
    const card = pane.getByTestId("question-call_ask");
    await expect(card).toContainText(`Which plan and how many seats should Day ${tag} start with?`);
    // The label says its unit once ("Seats", not "Seats (seats)").
    await expect(card.locator("label", { hasText: "Seats" })).toBeVisible();
    await expect(card.locator("label", { hasText: "Seats" })).not.toContainText("(seats)");
    const tap = (l: ReturnType<Page["locator"]>) => (viewport.width < 640 ? l.tap() : l.click());
    await card.getByLabel("Plan").selectOption("team");
    await tap(card.getByRole("button", { name: "Send answer" }));
    await expect(card.getByText("Seats: enter a number")).toHaveCount(1);
    await expect(card.getByRole("alert")).toHaveCount(0);
    await axe(reviewer, `inbox with a question in the pane at ${viewport.width}`);
    await card.getByLabel("Seats").fill("12");
    await tap(card.getByRole("button", { name: "Send answer" }));
    await expect(reviewer.getByTestId("preview-decided")).toContainText(`Decided request_user_input of run ${question.slice(0, 8)}`);
    await expect.poll(() => stateOf(reviewer, question), { timeout: 20_000 }).toBe("completed");

    expect(visited.every((p) => p === "/approvals")).toBe(true);
    expect(problems).toEqual([]);

    // The run page shows the answer as fields, its chip says "answered"; the refund reads as one view with its JSON behind a toggle.
    const look = await as(browser, "reviewer", viewport);
    await look.goto(`/runs/${question}`);
    await expect(look.getByTestId("question-status-call_ask")).toHaveText("answered");
    const answer = look.getByRole("definition").filter({ hasText: "Team" });
    await expect(answer).toBeVisible();
    await expect(look.getByTestId("question-outcome")).not.toContainText('{"plan"');
    await look.goto(`/runs/${refund}`);
    const refundCard = look.getByTestId("approval-issue_refund");
    await expect(refundCard.getByTestId("call-view")).toContainText("€90.00");
    await expect(refundCard.getByText('"amount_cents": 9000')).toBeHidden();
    await refundCard.getByText("Raw JSON").click();
    await expect(refundCard.getByText('"amount_cents": 9000')).toBeVisible();
  });
}
