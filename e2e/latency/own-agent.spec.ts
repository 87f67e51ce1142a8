// A team's own agent (agents/ticket-triage.ts, one file) on a team's own model: an OpenAI-compatible
// server on the local network (e2e/model-server.ts) that streams word by word. The run page shows the text
// as it arrives (pushed over server-sent events), the tool call waits for a reviewer and runs once after
// the approval, and a cancel stops a slow model call in flight within a second.
import path from "node:path";
import Database from "better-sqlite3";
import { type Browser, type Page, expect, test } from "@playwright/test";
import { signInAs, startFromForm, closeContextsAfterEach } from "../helpers";

closeContextsAfterEach();

const modelServer = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3100) + 99}`;
const dbFile = path.resolve("data/e2e-slow.db");

function watch(page: Page, problems: string[]) {
  page.on("console", (m) => {
    if (m.type() === "error" || /hydrat|did not match/i.test(m.text())) problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
}

// Its own context at a viewport, signed in, with console errors, page errors and 4xx/5xx collected.
async function watchedPage(browser: Browser, role: string, viewport: { width: number; height: number }, problems: string[]) {
  const ctx = await browser.newContext({ viewport });
  const page = await ctx.newPage();
  watch(page, problems);
  await signInAs(page, role);
  return { ctx, page };
}

test("ticket-triage on a local OpenAI-compatible server: text streams in, the tool waits for approval and runs once", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const problems: string[] = [];
  const { ctx, page } = await watchedPage(browser, "submitter", { width: 1280, height: 900 }, problems);
  const runId = await startFromForm(page, "ticket-triage", {
    subject: "Charged twice for order ORD-7788",
    body: "My card was charged twice. Please fix this asap.",
  });

  // The model's words appear while it writes them: the streaming panel grows, the run is running.
  const streaming = page.getByTestId("streaming");
  await expect(streaming).toContainText("Reading the ticket", { timeout: 15_000 });
  const early = (await streaming.textContent()) ?? "";
  await expect(page.getByTestId("run-state")).toHaveText("running");
  await expect(streaming).toContainText("filing it there now", { timeout: 15_000 });
  const later = (await streaming.textContent()) ?? "";
  expect(later.length).toBeGreaterThan(early.length);
  await page.screenshot({ path: "public/screenshots/run-page-streaming.png" });

  // Complete, the response is in the conversation and the call waits for a person (not the submitter).
  await expect(page.getByTestId("run-state")).toHaveText("paused", { timeout: 15_000 });
  await expect(streaming).toHaveCount(0);
  await expect(page.getByTestId("tool-call-file_ticket")).toContainText("billing");
  const { ctx: rctx, page: reviewer } = await watchedPage(browser, "reviewer", { width: 1280, height: 900 }, problems);
  await reviewer.goto(`/runs/${runId}`);
  await reviewer.getByTestId("approval-file_ticket").getByRole("button", { name: "Approve", exact: true }).click();
  await expect(reviewer.getByTestId("approval-status-file_ticket")).toHaveText("approved");
  // The decision completed the step: the run resumes by itself.
  // The final answer streams into the submitter's page too, then the run completes there.
  await expect(page.getByTestId("streaming")).toContainText("Filed", { timeout: 15_000 });
  await expect(page.getByTestId("run-state")).toHaveText("completed", { timeout: 20_000 });
  await expect(page.getByTestId("assistant-text").last()).toContainText("in billing as urgent (ticket");
  await rctx.close();

  // The tool ran once: one ticket row for the run.
  const db = new Database(dbFile, { readonly: true });
  const rows = db.prepare("SELECT recipient, body FROM OutboxMessage WHERE runId = ?").all(runId) as { recipient: string; body: string }[];
  db.close();
  expect(rows).toEqual([{ recipient: "queue:billing", body: "[urgent] Charged twice for order ORD-7788" }]);
  expect(problems).toEqual([]);
  await ctx.close();
});

test("cancel stops a slow model call in flight within a second", async ({ browser, request }) => {
  test.setTimeout(60_000);
  const problems: string[] = [];
  const { ctx, page } = await watchedPage(browser, "admin", { width: 390, height: 844 }, problems);
  const before = (await (await request.get(`${modelServer}/stats`)).json()) as { aborted: number };
  await startFromForm(page, "ticket-triage", { subject: "slow: printer offline", body: "The office printer is down again." });
  await expect(page.getByTestId("streaming")).toContainText("Reading", { timeout: 15_000 });
  page.once("dialog", (d) => void d.accept());
  const t0 = Date.now();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("run-state")).toHaveText("cancelled", { timeout: 5_000 });
  expect(Date.now() - t0).toBeLessThan(1000); // the click, the API call, the abort and the pushed refresh
  // The model server saw its client hang up: the call was aborted, not left to finish.
  await expect
    .poll(async () => ((await (await request.get(`${modelServer}/stats`)).json()) as { aborted: number }).aborted)
    .toBe(before.aborted + 1);
  expect(problems).toEqual([]);
  await ctx.close();
});
