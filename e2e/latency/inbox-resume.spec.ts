// Decide and move on, with a model that takes its time (AFK_DEMO_LATENCY_MS=800 on this project's server):
// a reviewer approves both calls of a refund from the inbox with the keyboard (`a`), and the run resumes by
// itself (the second decision completed its step) and completes, followed from the runs list. Nobody opens
// the run page or presses Resume; no 5xx, no console error.
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { signInAs, closeContextsAfterEach } from "../helpers";

closeContextsAfterEach();

const dbFile = path.resolve("data/e2e-slow.db");

test("approved from the inbox by keyboard, the run resumes by itself and completes without its page being opened", async ({ browser }) => {
  test.setTimeout(120_000);
  const problems: string[] = [];
  const submitterCtx = await browser.newContext();
  const submitter = await submitterCtx.newPage();
  await signInAs(submitter, "submitter");
  const started = await submitter.request.post("/api/runs", {
    data: { agent: "refund-desk", input: { order_id: "ORD-7301", amount_cents: 9000, reason: "Arrived late" } },
  });
  expect(started.status()).toBe(201);
  const { id } = (await started.json()) as { id: string };

  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const reviewer = await ctx.newPage();
  const visited: string[] = [];
  reviewer.on("framenavigated", (f) => f === reviewer.mainFrame() && visited.push(new URL(f.url()).pathname));
  reviewer.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  reviewer.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  reviewer.on("response", (r) => r.status() >= 500 && problems.push(`${r.status()} ${r.url()}`));
  await signInAs(reviewer, "reviewer");
  await reviewer.goto("/approvals");

  // The run's two calls arrive in the open inbox once the slow model has asked for them; the tab's title
  // counts what waits.
  for (const call of ["call_refund", "call_notify"]) {
    const row = reviewer.getByTestId(`inbox-${id}:2:${call}`);
    await expect(row).toBeVisible({ timeout: 30_000 });
    await expect(reviewer).toHaveTitle(/^\(\d+\) Approvals · AFK Console$/);
    await row.locator("td").nth(1).click();
    await expect(row).toHaveAttribute("aria-current", "true");
    await reviewer.keyboard.press("a");
    // Decided, it leaves the list.
    await expect(row).toHaveCount(0, { timeout: 10_000 });
  }

  // Followed from the runs list: the run goes on by itself (the model's next answer takes 800 ms) and completes.
  await reviewer.goto(`/runs?q=${id.slice(0, 8)}`);
  const badge = reviewer
    .locator("tr.run-row", { hasText: id.slice(0, 8) })
    .locator(".run-state .badge")
    .first();
  await expect
    .poll(
      async () => {
        await reviewer.reload();
        return badge.textContent();
      },
      { timeout: 30_000, intervals: [500] },
    )
    .toBe("completed");
  expect(visited.filter((p) => p.startsWith(`/runs/${id}`))).toEqual([]);
  await expect(reviewer).toHaveTitle(/^(\(\d+\) )?Runs · AFK Console$/);

  const db = new Database(dbFile, { readonly: true });
  try {
    const resumes = db.prepare(`SELECT action, actorEmail FROM AuditEvent WHERE targetId = ? AND action LIKE 'run.%resume'`).all(id);
    expect(resumes).toEqual([{ action: "run.auto_resume", actorEmail: null }]);
    expect(db.prepare("SELECT amountCents FROM Refund WHERE runId = ?").all(id)).toEqual([{ amountCents: 9000 }]);
  } finally {
    db.close();
  }
  expect(problems).toEqual([]);
  await ctx.close();
  await submitterCtx.close();
});
