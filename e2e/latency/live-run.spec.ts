// The console with a model that takes its time (AFK_DEMO_LATENCY_MS=800 on this project's server), as
// every real model does: a run is `running` for most of its life, and the page and API must be readable at
// every instant. Follows one run on its page from start through running, paused, resumed (running again)
// to completed, at desktop and phone width, and asserts zero 5xx answers and zero browser console errors
// (hydration mismatches included) in every context.
import { type Browser, type BrowserContext, type Page, expect, test } from "@playwright/test";
import { signInAs, closeContextsAfterEach } from "../helpers";

closeContextsAfterEach();

type Watch = { problems: string[]; fiveXx: string[]; apiRunningSeen: number };

async function watched(
  browser: Browser,
  role: string,
  w: Watch,
  viewport = { width: 1280, height: 900 },
): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ viewport });
  const page = await ctx.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" || /hydrat|did not match/i.test(m.text()))
      w.problems.push(`${role} console ${m.type()}: ${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => w.problems.push(`${role} page error: ${e.message}`));
  page.on("response", async (r) => {
    if (r.status() >= 500) w.fiveXx.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    if (r.status() >= 400) w.problems.push(`${role} got ${r.status()} for ${r.request().method()} ${r.url()}`);
    if (/\/api\/runs\/[0-9a-f-]{36}$/.test(r.url()) && r.status() === 200) {
      const body = (await r.json().catch(() => null)) as { run?: { state?: string; leaseUntilMs?: unknown } } | null;
      if (body?.run?.state === "running") w.apiRunningSeen++;
      if (body?.run && "leaseUntilMs" in body.run) w.problems.push("lease internals in a run answer");
    }
  });
  await signInAs(page, role);
  return { ctx, page };
}

test("a slow model: the run page follows running → paused → resumed → completed with no 5xx and no console error", async ({ browser }) => {
  test.setTimeout(120_000);
  const w: Watch = { problems: [], fiveXx: [], apiRunningSeen: 0 };
  const { page: submitter } = await watched(browser, "submitter", w);
  await submitter.goto("/runs/new");
  await submitter.getByLabel("Agent").selectOption("refund-desk");
  await submitter.locator("#input-order_id").fill("ORD-7001");
  await submitter.locator("#input-amount_cents").fill("90.00");
  await submitter.locator("#input-reason").fill("Arrived late");
  await submitter.getByRole("button", { name: "Start run" }).click();
  await expect(submitter).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = submitter.url().split("/runs/")[1];

  // While the model thinks, the page says so and keeps refreshing (each refresh an API answer).
  await expect(submitter.getByTestId("run-state")).toHaveText("running", { timeout: 10_000 });
  await expect(submitter.getByText(/live · step \d/)).toBeVisible();
  await submitter.screenshot({ path: "public/screenshots/run-page-running.png" });
  // A full page load in the middle of the run renders on the server and hydrates without a mismatch.
  await submitter.reload();
  await expect(submitter.getByTestId("run-state")).toHaveText(/running|paused/);
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 20_000 });

  // The reviewer decides on a phone.
  const { page: reviewer } = await watched(browser, "reviewer", w, { width: 390, height: 844 });
  await reviewer.goto(`/runs/${runId}`);
  await expect(reviewer.getByTestId("run-state")).toHaveText("paused");
  await reviewer.screenshot({ path: "public/screenshots/run-page-phone.png", fullPage: true });
  // Nothing is wider than the phone: no sideways scrolling.
  expect(await reviewer.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await reviewer.getByTestId("approval-issue_refund").getByRole("button", { name: "Approve", exact: true }).click();
  await expect(reviewer.getByTestId("approval-status-issue_refund")).toHaveText("approved");
  await reviewer.getByTestId("approval-notify_customer").getByRole("button", { name: "Approve", exact: true }).click();
  await expect(reviewer.getByTestId("approval-status-notify_customer")).toHaveText("approved");

  // Resumed by the last decision: running again for a model call, on both pages, then completed.
  await expect(reviewer.getByTestId("run-state")).toHaveText("running", { timeout: 10_000 });
  await expect(submitter.getByTestId("run-state")).toHaveText("completed", { timeout: 30_000 });
  await expect(reviewer.getByTestId("run-state")).toHaveText("completed", { timeout: 30_000 });
  await expect(reviewer.getByTestId("assistant-text").last()).toHaveText("Refunded 90.00 for ORD-7001.");

  // The timeline and the inbox of the same run, at phone width too.
  await reviewer.goto(`/runs/${runId}/timeline`);
  await expect(reviewer.getByRole("list", { name: "Checkpoints" })).toBeVisible();
  await reviewer.goto("/approvals");
  await expect(reviewer.getByRole("heading", { name: "Approvals" })).toBeVisible();
  // A run that pauses now appears in the open inbox by push: the inbox polls only every 15 s while its
  // live stream is up, and the page has not fetched since it rendered on the server.
  const t0 = Date.now();
  const started = await submitter.request.post("/api/runs", {
    data: { agent: "refund-desk", input: { order_id: "ORD-7002", amount_cents: 9100, reason: "Arrived broken" } },
  });
  expect(started.status()).toBe(201);
  await expect(reviewer.getByText("ORD-7002").first()).toBeVisible({ timeout: 10_000 });
  expect(Date.now() - t0, "shown before the inbox's next poll").toBeLessThan(12_000);

  expect(w.apiRunningSeen, "the API answered while the run was running").toBeGreaterThan(0);
  expect(w.fiveXx).toEqual([]);
  expect(w.problems).toEqual([]);
});
