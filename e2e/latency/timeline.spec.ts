// The timeline picture of a run that waited for a reviewer, on the server whose demo model takes 800 ms
// per call: the pause is drawn as a broken axis (cut to a fixed width, its real length written under it),
// so the model calls either side of it keep their size; every span has its step and its true duration.
// Desktop and phone width, no browser console error.
import path from "node:path";
import { type Browser, type Page, expect, test } from "@playwright/test";
import { approvalId } from "../../lib/runner/ids";
import { signInAs, wholePageShot, closeContextsAfterEach } from "../helpers";

closeContextsAfterEach();

const shots = path.resolve(import.meta.dirname, "../../public/screenshots");

async function as(browser: Browser, role: string, errors: string[], width = 1280): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
  page.on("console", (m) => (m.type() === "error" || /hydrat/i.test(m.text())) && errors.push(`${role}: ${m.text()}`));
  page.on("pageerror", (e) => errors.push(`${role}: ${e.message}`));
  await signInAs(page, role);
  return page;
}

const attr = async (l: ReturnType<Page["locator"]>, name: string) => Number(await l.getAttribute(name));

test("a paused run's timeline: the pause is a broken axis and the model calls next to it stay visible", async ({ browser }) => {
  test.setTimeout(120_000);
  const errors: string[] = [];
  const submitter = await as(browser, "submitter", errors);
  const reviewer = await as(browser, "reviewer", errors);
  const started = await submitter.request.post("/api/runs", {
    data: { agent: "deploy-bot", input: { service: "timeline", version: "2.0.0", environment: "staging" } },
  });
  expect(started.status()).toBe(201);
  const { id } = await started.json();
  const state = async () => (await (await reviewer.request.get(`/api/runs/${id}`)).json()).run.state as string;
  await expect.poll(state, { timeout: 30_000 }).toBe("paused");

  // While paused, the pause is open at the end of the axis.
  const operator = await as(browser, "operator", errors);
  await operator.goto(`/runs/${id}/timeline`);
  await expect(operator.getByTestId("span-paused")).toHaveCount(1);
  await expect(operator.getByTestId("span-paused").locator("title")).toHaveText(/paused step 2: open/);

  // The reviewer takes a few seconds: far longer than anything else in the run.
  await operator.waitForTimeout(4_000);
  const decided = await reviewer.request.post(`/api/approvals/${encodeURIComponent(approvalId(id, 2, "call_deploy"))}/decision`, {
    data: { decision: "approve" },
  });
  expect(decided.status()).toBe(200);
  // deploy-bot resumes by itself (autoResume) once its call is decided.
  await expect.poll(state, { timeout: 30_000 }).toBe("completed");

  for (const width of [1280, 390]) {
    const page = width === 1280 ? operator : await as(browser, "operator", errors, width);
    await page.goto(`/runs/${id}/timeline`);
    const picture = page.getByTestId("timeline-picture");
    await expect(picture).toBeVisible();
    await expect(picture).toHaveAttribute("aria-label", /; 1 wait totalling \d+\.\d s drawn cut short$/);
    const cut = picture.getByTestId("axis-break");
    await expect(cut).toHaveCount(1);
    await expect(cut).toHaveAttribute("data-paused", "true");
    const ms = await attr(cut, "data-ms");
    expect(ms).toBeGreaterThanOrEqual(4_000);
    await expect(cut.locator("text")).toHaveText(`${(ms / 1000).toFixed(1)} s`);
    await expect(cut.locator("rect")).toHaveAttribute("width", "28");
    // Three model calls of 800 ms each (two before the pause, one after): drawn to scale with the pause
    // they would be about 100/810 of the axis; with the pause cut they are over 150/810 of it, at any width.
    // (A step re-entered on resume replays its stored response: that pre_llm is no call, drawn interrupted.)
    // The spans have test ids once the picture is drawn at its measured width: the axis is read after them.
    const llm = picture.locator("[data-testid=span-llm][data-interrupted=false]");
    await expect(llm).toHaveCount(3);
    const axisLine = picture.getByTestId("axis-line");
    const axisLength = (await attr(axisLine, "x2")) - (await attr(axisLine, "x1"));
    for (const r of await llm.all()) {
      expect(await attr(r, "width")).toBeGreaterThan((axisLength * 150) / 810);
      await expect(r.locator("title")).toHaveText(/^LLM step \d: \d+ ms$|^LLM step \d: \d\.\d s$/);
    }
    await expect(picture.getByTestId("span-paused").locator("title")).toHaveText(/^paused step 2: \d+\.\d s$/);
    await expect(picture.getByTestId("span-tools")).not.toHaveCount(0);
    await wholePageShot(page, path.join(shots, width === 1280 ? "timeline-paused.png" : "timeline-paused-phone.png"));
  }
  expect(errors).toEqual([]);
});
