// Gates in Chromium: release-planner's delegation waits on the run page (the task edited on a form), then
// its second model call waits in a card of its own after the conversation; the inbox labels both kinds;
// release-planner opts out of resuming by itself, so each decided gate leaves it "Ready to resume" (the run
// page, the inbox's section, the runs list) until Resume; resumed, the run completes on the edited task.
// Desktop and phone width, no console errors.
import path from "node:path";
import { type Browser, type Page, expect, test } from "@playwright/test";
import { delegateToolName } from "../lib/runner/agent";
import { LLM_GATE_CALL_ID, approvalId } from "../lib/runner/ids";
import { signInAs, startFromForm, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

const delegation = delegateToolName({ name: "changelog-writer" });

const shots = path.resolve(import.meta.dirname, "../public/screenshots");

async function as(browser: Browser, role: string, width = 1280): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  await signInAs(page, role);
  return page;
}

test("a reviewed delegation (task edited) and a reviewed model call, decided on the run page", async ({ browser }) => {
  const submitter = await as(browser, "submitter");
  const id = await startFromForm(submitter, "release-planner", { service: "billing", version: "2.4.0" });
  const reviewer = await as(browser, "reviewer");
  const errors: string[] = [];
  reviewer.on("console", (m) => m.type() === "error" && errors.push(m.text()));

  await reviewer.goto("/approvals");
  const row = reviewer.getByTestId(`inbox-${approvalId(id, 1, "call_notes")}`);
  await expect(row).toContainText("Subagent");
  await expect(row).toContainText("Task: Notes for billing 2.4.0");
  await row.getByRole("link").click();

  const card = reviewer.getByTestId(`approval-${delegation}`);
  await expect(card).toContainText("Approve the delegation");
  await card.getByRole("button", { name: "Edit the task…" }).click();
  await card.getByLabel("Task").fill("Notes for billing 2.4.0, security fixes first");
  await card.getByRole("button", { name: "Approve with these arguments" }).click();
  await expect(reviewer.getByTestId(`approval-status-${delegation}`)).toHaveText("approved");
  // release-planner opts out of resuming by itself: decided, the run waits for a Resume and says so.
  await expect(reviewer.getByTestId("run-state-words")).toHaveText("Ready to resume");
  await expect(reviewer.getByTestId("run-state")).toHaveText("paused");
  await reviewer.getByRole("button", { name: "Resume" }).click();

  const gate = reviewer.getByTestId("model-call-gate-2");
  await expect(gate).toContainText("Before the model call of step 2", { timeout: 15_000 });
  await expect(gate).toContainText("Model calls after the first are reviewed");
  await expect(gate.getByRole("button", { name: "Respond…" })).toHaveCount(0);
  await expect(gate.getByRole("button", { name: /Edit/ })).toHaveCount(0);
  await expect(reviewer.getByTestId("run-state")).toHaveText("paused");
  await reviewer.screenshot({ path: path.join(shots, "model-call-gate.png"), fullPage: true });

  const phone = await as(browser, "reviewer", 390);
  phone.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await phone.goto("/approvals");
  await expect(phone.getByTestId(`inbox-${approvalId(id, 2, LLM_GATE_CALL_ID)}`)).toContainText("Model call");
  await phone.goto(`/runs/${id}`);
  const phoneGate = phone.getByTestId("model-call-gate-2");
  await phoneGate.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(phone.getByTestId("approval-status-llm_call")).toHaveText("approved");
  // The card fits the phone's width: nothing to scroll sideways.
  expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  // Ready to resume, where runs are listed: the inbox's section and the runs list (its filter too).
  await phone.goto("/approvals");
  await expect(phone.getByTestId("ready-runs").getByRole("link", { name: new RegExp(`release-planner ${id.slice(0, 8)}`) })).toBeVisible();
  await phone.goto("/runs?state=ready");
  const listed = phone.locator("tr.run-row", { hasText: id.slice(0, 8) });
  await expect(listed.getByTestId("run-ready")).toHaveText("Ready to resume");
  await listed.getByRole("link").click();
  await expect(phone.getByTestId("run-state-words")).toHaveText("Ready to resume");
  await phone.getByRole("button", { name: "Resume" }).click();
  await expect(phone.getByTestId("run-state")).toHaveText("completed", { timeout: 15_000 });
  await expect(phone.getByTestId("assistant-text").last()).toContainText("security fixes first");
  expect(errors).toEqual([]);
});
