// Accessibility: axe-core (WCAG 2.1 A and AA rules) on every page of the console, in light and dark
// colours, at desktop and phone width, in the states a user meets them (a paused run with its approval
// card open for editing, a question, a timeline, the inbox with a selection). Zero serious or critical
// violations; the report names each rule and the elements it found.
import { AxeBuilder } from "@axe-core/playwright";
import { type Browser, type BrowserContext, type Page, expect, test } from "@playwright/test";
import { signInAs, startFromForm, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

// Each role signs in through the form once; its other pages (each colour and width is a context of its own)
// start from that session's cookies instead of signing in again a dozen times. audit() checks that each
// page it audits is still signed in as that role.
const sessions = new Map<string, Awaited<ReturnType<BrowserContext["storageState"]>>>();
const roles = new WeakMap<Page, string>();

async function as(browser: Browser, role: string | null, opts: { width?: number; dark?: boolean } = {}): Promise<Page> {
  const ctx = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: 900 },
    colorScheme: opts.dark ? "dark" : "light",
    storageState: role ? sessions.get(role) : undefined,
  });
  const page = await ctx.newPage();
  if (!role) return page;
  roles.set(page, role);
  if (!sessions.has(role)) {
    await signInAs(page, role);
    sessions.set(role, await ctx.storageState());
  }
  return page;
}

async function audit(page: Page, what: string) {
  const role = roles.get(page);
  if (role) await expect(page.getByTestId("whoami"), `${what}: signed in`).toContainText(`${role}@example.com`);
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const bad = violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${what}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.map((n) => `${n.target.join(" ")} ${n.html} (${n.failureSummary})`).join(", ")}`,
    );
  expect(bad, bad.join("\n")).toEqual([]);
  // At phone width nothing widens the page itself (wide tables scroll inside their card).
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  if (innerWidth < 640) expect(scrollWidth, `${what}: the page scrolls sideways`).toBeLessThanOrEqual(innerWidth);
}

// A paused refund and a paused question, audited in each variant below.
let refund = "";
let question = "";
test.beforeAll(async ({ browser }) => {
  test.setTimeout(90_000);
  const submitter = await as(browser, "submitter");
  refund = await startFromForm(submitter, "refund-desk", { order_id: "ORD-1001", amount_cents: "90.00", reason: "axe check" });
  question = await startFromForm(submitter, "account-setup", { company: "Axe Ltd" });
  for (const id of [refund, question])
    await expect
      .poll(async () => (await (await submitter.request.get(`/api/runs/${id}`)).json()).run.state, { timeout: 20_000 })
      .toBe("paused");
  await submitter.context().close();
});

// One test a variant: each walks every page (about a minute on a quiet machine) within its own time.
for (const [name, variant] of [
  ["light, desktop", {}],
  ["dark, desktop", { dark: true }],
  ["light, phone", { width: 390 }],
] as const) {
  test(`every page has no serious or critical axe violations (${name})`, async ({ browser }) => {
    test.setTimeout(180_000);
    const label = (p: string) => `${p} ${JSON.stringify(variant)}`;
    const anon = await as(browser, null, variant);
    await anon.goto("/login");
    await audit(anon, label("/login"));

    const sub = await as(browser, "submitter", variant);
    await sub.goto("/runs/new");
    await sub.getByLabel("Agent").selectOption("refund-desk");
    await sub.getByRole("button", { name: "Start run" }).click();
    // An invalid form shows its field errors: those are audited too.
    await expect(sub.locator("[aria-invalid=true]").first()).toBeVisible();
    await audit(sub, label("/runs/new with errors"));

    const rev = await as(browser, "reviewer", variant);
    await rev.goto("/approvals");
    await expect(rev.getByRole("table", { name: "Pending approvals" })).toBeVisible();
    await rev.keyboard.press("?");
    await audit(rev, label("/approvals"));
    await rev.goto(`/runs/${refund}`);
    await rev.getByTestId("approval-issue_refund").getByRole("button", { name: "Edit arguments…" }).click();
    await audit(rev, label("/runs/[id] editing"));
    await rev.goto(`/runs/${question}`);
    await expect(rev.getByTestId("run-state")).toHaveText("paused");
    await audit(rev, label("/runs/[id] question"));

    const op = await as(browser, "operator", variant);
    await op.goto("/runs");
    await audit(op, label("/runs"));
    await op.goto(`/runs/${refund}/timeline`);
    await expect(op.getByRole("heading", { level: 1 })).toBeVisible();
    await audit(op, label("/runs/[id]/timeline"));

    const admin = await as(browser, "admin", variant);
    for (const p of ["/admin/users", "/admin/tokens", "/admin/notifications", "/settings", "/audit"]) {
      await admin.goto(p);
      await audit(admin, label(p));
    }
    for (const p of [anon, sub, rev, op, admin]) await p.context().close();
  });
}

/** Presses Tab until `target` has focus (at most `max` times): proves it is reachable in tab order. */
async function tabTo(page: Page, target: ReturnType<Page["locator"]>, max = 120) {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement).catch(() => false)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`not reachable by Tab in ${max} presses: ${target}`);
}

test("a run page's decisions by keyboard only: approve, reject with a reason; a Resume", async ({ browser }) => {
  const submitter = await as(browser, "submitter");
  const id = await startFromForm(submitter, "refund-desk", { order_id: "ORD-1001", amount_cents: "90.00", reason: "keyboard" });
  const rev = await as(browser, "reviewer", { width: 390 });
  const errors: string[] = [];
  rev.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await rev.goto(`/runs/${id}`);
  await expect(rev.getByTestId("run-state")).toHaveText("paused", { timeout: 20_000 });

  const refund = rev.getByTestId("approval-issue_refund");
  await tabTo(rev, refund.getByRole("button", { name: "Approve", exact: true }));
  await rev.keyboard.press("Enter");
  await expect(rev.getByTestId("approval-status-issue_refund")).toHaveText("approved");

  const notify = rev.getByTestId("approval-notify_customer");
  await tabTo(rev, notify.getByRole("button", { name: "Reject…" }));
  await rev.keyboard.press("Enter");
  await tabTo(rev, notify.getByLabel("Reason (the model sees it)"));
  await rev.keyboard.type("Not by e-mail, by phone");
  await tabTo(rev, notify.getByRole("button", { name: "Reject", exact: true }));
  await rev.keyboard.press("Enter");
  await expect(rev.getByTestId("approval-status-notify_customer")).toHaveText("rejected");
  // The last decision resumes the run by itself.
  await expect(rev.getByTestId("run-state")).toHaveText("completed", { timeout: 20_000 });

  // An agent that waits for a Resume (release-planner): approved and resumed by keyboard.
  const planned = await startFromForm(submitter, "release-planner", { service: "billing", version: "2.4.1" });
  await rev.goto(`/runs/${planned}`);
  await expect(rev.getByTestId("run-state")).toHaveText("paused", { timeout: 20_000 });
  await tabTo(rev, rev.locator('[data-testid^="approval-delegate"]').getByRole("button", { name: "Approve", exact: true }));
  await rev.keyboard.press("Enter");
  await expect(rev.getByTestId("run-state-words")).toHaveText("Ready to resume");
  await tabTo(rev, rev.getByRole("button", { name: "Resume" }));
  await rev.keyboard.press("Enter");
  // Resumed: the subagent runs, and the second model call waits for its own decision.
  await expect(rev.getByTestId("model-call-gate-2")).toBeVisible({ timeout: 20_000 });
  expect(errors).toEqual([]);
});
