// Hand-offs from the approval card in the browser (server actions): a reviewer comments on a pending
// request and reassigns it to the admin; the card shows the comment and "Reassigned to … by …", and the
// reviewer no longer decides it; the submitter sees the thread but neither form.
import { type Browser, type Page, expect, test } from "@playwright/test";
import { signInAs, startFromForm, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

async function as(browser: Browser, role: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await signInAs(page, role);
  return page;
}

test("comment on a request and reassign it from its card", async ({ browser }) => {
  const submitter = await as(browser, "submitter");
  const runId = await startFromForm(submitter, "refund-desk", { order_id: "ORD-4141", amount_cents: "8000", reason: "Torn box" });
  await expect(submitter.getByTestId("run-state")).toHaveText("paused", { timeout: 15_000 });

  const reviewer = await as(browser, "reviewer");
  await reviewer.goto(`/runs/${runId}`);
  const card = reviewer.getByTestId("approval-issue_refund");
  await expect(card.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
  await card.getByLabel("Comment", { exact: true }).fill("Photos show the torn box <b>clearly</b>");
  await card.getByRole("button", { name: "Comment" }).click();
  await expect(card.getByTestId("comment")).toContainText("Photos show the torn box <b>clearly</b>");

  await card.getByRole("button", { name: "Reassign…" }).click();
  await card.getByLabel("Reassign to (a reviewer's email or a routing group)").fill("admin@example.com");
  await card.getByLabel("Why (optional)").fill("Above my limit");
  await card.getByRole("button", { name: "Reassign", exact: true }).click();
  await expect(card.getByTestId("reassigned")).toContainText("Reassigned to admin@example.com by reviewer@example.com");
  // Now the admin's: the reviewer's card offers no decision and no Reassign.
  await expect(card.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  await expect(card.getByRole("button", { name: "Reassign…" })).toHaveCount(0);

  // The submitter reads the thread and the hand-off, and has no form to post or reassign.
  await submitter.reload();
  const theirs = submitter.getByTestId("approval-issue_refund");
  await expect(theirs.getByTestId("comment")).toContainText("Photos show the torn box");
  await expect(theirs.getByTestId("reassigned")).toContainText("admin@example.com");
  await expect(theirs.getByLabel("Comment", { exact: true })).toHaveCount(0);
  await expect(theirs.getByRole("button", { name: "Reassign…" })).toHaveCount(0);
});
