// The run page and the timeline as a reviewer reads them (issue 27): a link to an approval lands on its
// card with focus, a summary says what waits for whom, decided cards say their state in words and look
// unlike pending ones, the reject form has no Approve beside it, a finished run's answer is at the top and
// its phase is said in words, a rejected call is labelled as rejected; the timeline fits a phone.
import { type Browser, type Locator, type Page, expect, request, test } from "@playwright/test";
import { signInAs, startFromForm, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

async function as(browser: Browser, role: string, opts: { width?: number; dark?: boolean } = {}): Promise<Page> {
  const ctx = await browser.newContext({
    colorScheme: opts.dark ? "dark" : "light",
    viewport: { width: opts.width ?? 1280, height: 800 },
  });
  const page = await ctx.newPage();
  await signInAs(page, role);
  return page;
}

const anchor = (runId: string, call: string) => `approval-${encodeURIComponent(`${runId}:2:${call}`)}`;
const background = (l: Locator) => l.evaluate((el) => getComputedStyle(el).backgroundColor);
const isFocused = (l: Locator) => l.evaluate((el) => el === document.activeElement);
const inViewport = (l: Locator) =>
  l.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.top < window.innerHeight;
  });

function consoleProblems(page: Page): string[] {
  const seen: string[] = [];
  page.on("console", (m) => (m.type() === "error" || m.type() === "warning") && seen.push(`${m.type()}: ${m.text()}`));
  return seen;
}

test("a run page: links focus their card, what waits is summed up, decided cards say so, the answer is on top", async ({ browser }) => {
  const submitter = await as(browser, "submitter");
  const runId = await startFromForm(submitter, "refund-desk", { order_id: "ORD-2727", amount_cents: "8000", reason: "Torn box" });
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 15_000 });
  // The submitter may not decide: each pending call says it waits for a reviewer, and so does the summary.
  await expect(submitter.getByTestId("run-state-words")).toHaveText("Waiting for approval");
  await expect(submitter.getByTestId("waiting-for-others")).toContainText("2 calls wait for a reviewer");
  for (const call of ["issue_refund", "notify_customer"])
    await expect(submitter.getByTestId(`approval-${call}`).getByTestId("approval-outcome")).toHaveText(/Waiting for a reviewer/);

  // A reviewer opens the notify call from the inbox (o): the page lands on that card, focused.
  const reviewer = await as(browser, "reviewer");
  const problems = consoleProblems(reviewer);
  await reviewer.goto("/approvals");
  await reviewer.getByTestId(`inbox-${runId}:2:call_notify`).locator("td").nth(1).click();
  await reviewer.keyboard.press("o");
  await expect(reviewer).toHaveURL(new RegExp(`/runs/${runId}#${anchor(runId, "call_notify")}`));
  const notify = reviewer.getByTestId("approval-notify_customer");
  const refund = reviewer.getByTestId("approval-issue_refund");
  await expect.poll(() => isFocused(notify)).toBe(true);
  expect(await inViewport(notify)).toBe(true);

  // The summary names both with jump links; the first one focuses the refund card.
  const summary = reviewer.getByTestId("waiting-for-you");
  await expect(summary).toContainText("2 calls wait for you");
  await summary.getByRole("link", { name: "issue_refund (step 2)" }).click();
  await expect.poll(() => isFocused(refund)).toBe(true);
  await expect(refund.getByTestId("approval-outcome")).toHaveText(/Waiting for your decision/);
  // Nothing to resume yet, and it says why in words.
  await expect(reviewer.getByRole("button", { name: "Resume" })).toBeDisabled();
  await expect(reviewer.getByText("Decide every pending call first")).toBeVisible();

  // An open reject form has no Approve beside it; Cancel brings Approve back.
  await notify.getByRole("button", { name: "Reject…" }).click();
  await expect(notify.getByLabel("Reason (the model sees it)")).toBeFocused();
  await expect(notify.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  await notify.getByRole("button", { name: "Cancel" }).click();
  await expect(notify.getByRole("button", { name: "Approve", exact: true })).toBeVisible();

  const pendingBackground = await background(refund);
  await refund.getByRole("button", { name: "Approve", exact: true }).click();
  // €8,000.00 is above the refund-large rule's confirmAbove (€1,000.00): the card asks first.
  await refund.getByTestId("confirm-approve").getByRole("button", { name: "Yes, approve" }).click();
  await expect(refund.getByTestId("approval-outcome")).toHaveText(/^✓ Approved by reviewer@example\.com at /);
  await notify.getByRole("button", { name: "Reject…" }).click();
  await notify.getByLabel("Reason (the model sees it)").fill("Call the customer instead");
  await notify.getByRole("button", { name: "Reject", exact: true }).click();
  await expect(notify.getByTestId("approval-outcome")).toHaveText(/^✕ Rejected by reviewer@example\.com at /);
  await expect(reviewer.getByTestId("waiting-summary")).toHaveCount(0);
  // Pending, approved and rejected cards each look different.
  const approvedBackground = await background(refund);
  const rejectedBackground = await background(notify);
  expect(new Set([pendingBackground, approvedBackground, rejectedBackground]).size).toBe(3);

  // The rejection was the step's last decision: the run resumes by itself.
  await expect(reviewer.getByTestId("run-state")).toHaveText("completed", { timeout: 15_000 });
  await expect(reviewer.getByTestId("run-state-words")).toHaveText("Completed");
  // The answer is at the top, above the conversation; the phase in words, the raw one beside it.
  const answer = reviewer.getByTestId("final-answer");
  await expect(answer).toContainText("ORD-2727");
  const conversation = reviewer.getByRole("list", { name: "Conversation" });
  expect((await answer.boundingBox())!.y).toBeLessThan((await conversation.boundingBox())!.y);
  await expect(reviewer.locator("dd", { hasText: "Run ended" })).toContainText("run_terminal");
  // The rejected call is labelled as rejected, with the feedback the model got; not as a failed result.
  await expect(reviewer.getByTestId("result-label-notify_customer")).toHaveText(/^Rejected: not run/);
  await expect(reviewer.getByTestId("tool-result-notify_customer")).toContainText("Call the customer instead");
  await expect(reviewer.getByText("(failed)")).toHaveCount(0);
  expect(problems).toEqual([]);

  // A link from outside (a webhook's deep link) on a phone, in the dark: the card is scrolled to and focused.
  const phone = await as(browser, "reviewer", { width: 390, dark: true });
  const phoneProblems = consoleProblems(phone);
  await phone.goto(`/runs/${runId}#${anchor(runId, "call_notify")}`);
  const card = phone.getByTestId("approval-notify_customer");
  await expect.poll(() => isFocused(card)).toBe(true);
  expect(await inViewport(card)).toBe(true);
  await expect(card.getByTestId("approval-outcome")).toHaveText(/Rejected/);
  expect(phoneProblems).toEqual([]);
});

test("a timeline on a phone: two-line rows with the rest behind Inspect, no sideways scrolling, compare next to the pick, repeated pauses explained", async ({
  browser,
}) => {
  const submitter = await as(browser, "submitter");
  const runId = await startFromForm(submitter, "refund-desk", { order_id: "ORD-2828", amount_cents: "9000", reason: "Late" });
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 15_000 });
  for (const width of [390, 1280]) {
    for (const dark of [false, true]) {
      const page = await as(browser, "operator", { width, dark });
      const problems = consoleProblems(page);
      await page.goto(`/runs/${runId}/timeline`);
      const rows = page.getByRole("list", { name: "Checkpoints" }).locator("li[data-testid^=checkpoint-]");
      await expect(rows.first()).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `the ${width} px page scrolls sideways`).toBeLessThanOrEqual(0);
      // The picture fits its card (nothing scrolls inside it either) and its axis is labelled with times.
      const picture = page.getByTestId("timeline-picture");
      const fits = await picture.evaluate((svg) => svg.getBoundingClientRect().width <= svg.parentElement!.clientWidth + 0.5);
      expect(fits).toBe(true);
      await expect(picture.getByTestId("axis-marks").locator("text").first()).toHaveText("0 ms");
      expect(await picture.getByTestId("axis-marks").locator("text").count()).toBeGreaterThanOrEqual(2);
      // Two calls wait: two `paused` checkpoints, the second explained.
      await expect(
        page.getByTestId("checkpoint-note").filter({ hasText: "Paused again: one checkpoint is written per call that waits" }),
      ).toHaveCount(1);
      const phone = width < 768;
      if (phone) {
        // A phone row is two lines (seq, phase in words, gap; step and why), not a stack of every field: the
        // raw phase, the time and the compare radios wait behind the row's Inspect.
        for (const row of await rows.all()) expect((await row.boundingBox())!.height).toBeLessThan(64);
        await expect(rows.first().getByTestId("checkpoint-phase")).toBeHidden();
        await expect(rows.first().getByRole("radio")).toHaveCount(0);
        await expect(rows.last().getByText(/waits on call_\w+ too/)).toBeVisible();
      }
      // No fork button on every row: one, inside the checkpoint opened for inspection.
      await expect(page.getByRole("button", { name: /^Fork/ })).toHaveCount(0);
      await rows.first().getByText("Inspect").click();
      await expect(page.getByRole("button", { name: /^Fork a new run from checkpoint/ })).toHaveCount(1);
      await expect(rows.first().getByTestId("checkpoint-phase")).toBeVisible();

      const compare = page.getByRole("button", { name: "Compare selected" });
      await expect(compare).toBeDisabled();
      await page.getByRole("radio", { name: "Compare from checkpoint 0" }).check();
      const last = Number((await rows.last().getAttribute("data-testid"))!.split("-")[1]);
      if (phone) {
        // Closed again, the row still says it is picked.
        await rows.first().getByText("Inspect").click();
        await expect(rows.first().getByTestId("picked").filter({ visible: true })).toHaveText("from");
        await rows.last().getByText("Inspect").click();
        // Opened, the phone's row explains itself whole.
        await expect(rows.last().getByTestId("checkpoint-note")).toBeVisible();
      }
      await page.getByRole("radio", { name: `Compare to checkpoint ${last}` }).check();
      await expect(page.getByTestId("compare-selection")).toHaveText(`Compare checkpoint 0 → ${last}`);
      // The button sits in view right where the last pick was made.
      expect(await inViewport(compare)).toBe(true);
      await compare.click();
      const diff = page.getByRole("region", { name: "Checkpoint diff" });
      const changed = diff.locator('tr[data-changed="true"]', { hasText: "messages" });
      await expect(changed).toContainText("changed");
      const unchanged = diff.locator('tr[data-changed="false"]');
      if ((await unchanged.count()) > 0) expect(await background(changed)).not.toBe(await background(unchanged.first()));
      await expect(diff).not.toContainText("come from the snapshot at seq");
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      expect(problems).toEqual([]);
      await page.context().close();
    }
  }
});

test("a long timeline: the page's HTML has its first screen of rows and the browser the rest; without JavaScript, Next page goes on after the last row shown", async ({
  browser,
  baseURL,
}) => {
  // An external run of 41 entries (its registration and 40 reports), made through the runtime protocol.
  const operator = await as(browser, "operator");
  const admin = await as(browser, "admin");
  const made = await admin.request.post("/api/admin/tokens", { data: { name: `long-timeline-${Date.now()}`, role: "runtime" } });
  expect(made.status()).toBe(201);
  const runtime = await request.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${(await made.json()).token}` } });
  const registered = await runtime.post("/api/v1/runtime/runs", {
    data: { externalId: `long-${Date.now()}`, framework: "langgraph", agent: "long-bot" },
  });
  expect(registered.ok(), await registered.text()).toBe(true);
  const runId: string = (await registered.json()).id;
  const events = Array.from({ length: 40 }, (_, i) => ({ type: "message", id: `m${i}`, role: "user", content: `Report ${i + 2}` }));
  const reported = await runtime.post(`/api/v1/runtime/runs/${runId}/events`, { data: { events } });
  expect(reported.ok(), await reported.text()).toBe(true);
  const seqs = (page: Page) =>
    page
      .getByRole("list", { name: "Checkpoints" })
      .locator("li[data-testid^=checkpoint-]")
      .evaluateAll((lis) => lis.map((li) => Number(li.getAttribute("data-testid")!.split("-")[1])));
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  // Without JavaScript: the first screen's 12 rows (first-screen.ts), and a Next page that goes on from the
  // 13th, and so on to the last; the picture draws all of the page's.
  const noJs = await (
    await browser.newContext({ storageState: await operator.context().storageState(), javaScriptEnabled: false })
  ).newPage();
  await noJs.goto(`/runs/${runId}/timeline`);
  expect(await seqs(noJs)).toEqual(range(1, 12));
  await expect(noJs.getByTestId("timeline-picture")).toHaveAttribute("aria-label", /^Timeline picture of 41 checkpoints/);
  for (const [from, to] of [
    [13, 24],
    [25, 36],
    [37, 41],
  ]) {
    await noJs.getByRole("link", { name: "Next page →" }).click();
    await expect(noJs.getByRole("link", { name: "← First page" })).toBeVisible();
    expect(await seqs(noJs)).toEqual(range(from, to));
  }
  await expect(noJs.getByRole("link", { name: "Next page →" })).toHaveCount(0);
  // Comparing without JavaScript: the rows have no radios then, the form asks for the two checkpoints.
  await expect(noJs.getByRole("radio")).toHaveCount(0);
  await noJs.getByRole("spinbutton", { name: "From checkpoint" }).fill("2");
  await noJs.getByRole("spinbutton", { name: "to", exact: true }).fill("40");
  await noJs.getByRole("button", { name: "Compare", exact: true }).click();
  await expect(noJs.getByRole("region", { name: "Checkpoint diff" })).toContainText("Checkpoint 2 → 40");
  await expect(noJs.getByRole("spinbutton", { name: "From checkpoint" })).toHaveValue("2");

  // With it: every row of the page once hydrated, nothing left to page to; a row past the first screen is
  // inspected and compared as any other.
  const problems = consoleProblems(operator);
  await operator.goto(`/runs/${runId}/timeline`);
  await expect.poll(() => seqs(operator)).toEqual(range(1, 41));
  await expect(operator.getByRole("link", { name: "Next page →" })).toHaveCount(0);
  await operator.getByTestId("checkpoint-31").getByText("Inspect").click();
  await expect(operator.getByRole("region", { name: "Payload of checkpoint 31" })).toContainText("Report 31");
  await operator.getByRole("radio", { name: "Compare from checkpoint 2", exact: true }).check();
  await operator.getByRole("radio", { name: "Compare to checkpoint 40", exact: true }).check();
  await operator.getByRole("button", { name: "Compare selected" }).click();
  await expect(operator.getByRole("region", { name: "Checkpoint diff" })).toContainText("Checkpoint 2 → 40");
  expect(problems).toEqual([]);
  await runtime.dispose();
});

test("a cancelled run says who cancelled it; its closed request says why, not a system id", async ({ browser }) => {
  const submitter = await as(browser, "submitter");
  const runId = await startFromForm(submitter, "support-writer", { customer: "Cancel Co", question: "Never mind" });
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 15_000 });
  const operator = await as(browser, "operator");
  const problems = consoleProblems(operator);
  await operator.goto(`/runs/${runId}`);
  operator.once("dialog", (d) => void d.accept());
  await operator.getByRole("button", { name: "Cancel", exact: true }).click();
  await expect(operator.getByTestId("run-state")).toHaveText("cancelled", { timeout: 15_000 });
  await expect(operator.getByTestId("run-state-words")).toHaveText("Cancelled by operator@example.com");
  const outcome = operator.getByTestId("approval-send_reply").getByTestId("approval-outcome");
  await expect(outcome).toHaveText(/^○ Expired at .*: The run was cancelled$/);
  await expect(operator.getByText(/system:run-ended/)).toHaveCount(0);
  // The audit log says it in words too.
  await operator.goto(`/audit?targetId=${runId}`);
  await expect(operator.getByTestId("audit-run.cancel").locator(".audit-action")).toHaveText("cancelled the run");
  await expect(operator).toHaveTitle("Audit log · AFK Console");
  expect(problems).toEqual([]);
});

test("a reason typed in a second tab stays there, said not sent, when the first tab's decision arrives live", async ({ browser }) => {
  const submitter = await as(browser, "submitter");
  const runId = await startFromForm(submitter, "refund-desk", { order_id: "ORD-2728", amount_cents: "4000", reason: "Two tabs" });
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 15_000 });
  const first = await as(browser, "reviewer");
  const second = await first.context().newPage();
  const problems = consoleProblems(second);
  for (const p of [first, second]) await p.goto(`/runs/${runId}`);
  const draft = second.getByTestId("approval-notify_customer");
  await draft.getByRole("button", { name: "Reject…" }).click();
  await draft.getByLabel("Reason (the model sees it)").fill("Phone them first, the address changed");

  const notify = first.getByTestId("approval-notify_customer");
  await notify.getByRole("button", { name: "Reject…" }).click();
  await notify.getByLabel("Reason (the model sees it)").fill("Not this week");
  await notify.getByRole("button", { name: "Reject", exact: true }).click();
  await expect(notify.getByTestId("approval-outcome")).toHaveText(/^✕ Rejected by reviewer@example\.com at /);

  // The second tab hears of it: the card is decided, and what was typed there is kept, said not sent.
  await expect(draft.getByTestId("approval-outcome")).toHaveText(/^✕ Rejected by reviewer@example\.com at /, { timeout: 10_000 });
  await expect(draft.getByTestId("draft-unsent")).toContainText("Decided meanwhile, so what you wrote was not sent");
  await expect(draft.getByLabel("What you wrote (not sent)")).toHaveValue("Phone them first, the address changed");
  expect(problems).toEqual([]);
});
