import { type APIRequestContext, type Page, expect, request, test } from "@playwright/test";
import { type Permission, type Role, can } from "../lib/auth/roles";
import { LLM_GATE_CALL_ID, approvalId } from "../lib/runner/ids";

export const DEMO_PASSWORD = process.env.AFK_DEMO_PASSWORD ?? "afk-demo-2026";

export async function signIn(page: Page, email: string, password = DEMO_PASSWORD) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

export async function signInAs(page: Page, role: string) {
  await signIn(page, `${role}@example.com`);
  await expect(page.getByTestId("whoami")).toContainText(`${role}@example.com`);
}

/** Starts a run from the form at /runs/new (fields by input name; selects are selected) and returns its id. */
export async function startFromForm(page: Page, agent: string, fields: Record<string, string>): Promise<string> {
  await page.goto("/runs/new");
  await page.getByLabel("Agent").selectOption(agent);
  for (const [label, value] of Object.entries(fields)) {
    const input = page.locator(`#input-${label}`);
    if ((await input.evaluate((el) => el.tagName)) === "SELECT") await input.selectOption(value);
    else await input.fill(value);
  }
  await page.getByRole("button", { name: "Start run" }).click();
  // The start, then the run page's server render: past 5 s in CI beside the other lane (not a speed check).
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/, { timeout: 20_000 });
  return page.url().split("/runs/")[1];
}

/** A signed-in API client (next-auth's credentials callback, as the login form calls it): no page to load. */
/**
 * A screenshot of the whole page as it reads scrolled to its end (the README's pictures): the viewport is
 * made as tall as the page first, so a sticky bar (the timeline's Compare bar) sits under its list instead
 * of over the row where the first screen ended, as a full-page screenshot of a 900 px viewport draws it.
 */
export async function wholePageShot(page: Page, file: string): Promise<void> {
  const viewport = page.viewportSize();
  if (!viewport) throw new Error("wholePageShot needs a page with a fixed viewport");
  await page.setViewportSize({ width: viewport.width, height: await page.evaluate(() => document.documentElement.scrollHeight) });
  await page.screenshot({ path: file });
  await page.setViewportSize(viewport);
}

export async function apiSession(baseURL: string, role: Role): Promise<APIRequestContext> {
  const api = await request.newContext({ baseURL });
  const { csrfToken } = await (await api.get("/api/auth/csrf", { timeout: 300_000 })).json();
  const res = await api.post("/api/auth/callback/credentials", {
    form: { csrfToken, email: `${role}@example.com`, password: DEMO_PASSWORD, json: "true" },
    timeout: 300_000,
  });
  expect(res.ok(), `${role} signs in`).toBe(true);
  expect((await api.storageState()).cookies.map((c) => c.name)).toContain("next-auth.session-token");
  return api;
}

export type Runs = { paused: string; question: string; completed: string; failed: string };

async function until(api: APIRequestContext, id: string, state: string) {
  await expect
    .poll(async () => (await (await api.get(`/api/runs/${id}`, { timeout: 300_000 })).json()).run?.state, {
      timeout: 300_000,
      message: `run ${id} ${state}`,
    })
    .toBe(state);
}

async function start(api: APIRequestContext, agent: string, input: Record<string, unknown>): Promise<string> {
  const res = await api.post("/api/runs", { data: { agent, input }, timeout: 300_000 });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).id;
}

async function decide(api: APIRequestContext, id: string, body: Record<string, unknown>) {
  const res = await api.post(`/api/approvals/${encodeURIComponent(id)}/decision`, { data: body, timeout: 300_000 });
  expect(res.status(), await res.text()).toBe(200);
}

async function resume(api: APIRequestContext, id: string) {
  expect((await api.post(`/api/runs/${id}/resume`, { timeout: 300_000 })).status()).toBe(202);
}

/** The runs the pages are walked with (e2e/dev, e2e/visual), started and decided through the API as users would. */
export async function makeRuns(baseURL: string): Promise<Runs> {
  const [sub, rev] = await Promise.all([apiSession(baseURL, "submitter"), apiSession(baseURL, "reviewer")]);
  // One after the other: the runs list shows them in the same order every time (the screenshots compare it).
  const paused = await start(sub, "refund-desk", { order_id: "ORD-1001", amount_cents: 9000, reason: "dev walk" });
  const question = await start(sub, "account-setup", { company: "Dev Ltd" });
  const completed = await start(sub, "order-status", { order_id: "ORD-1001" });
  const failed = await start(sub, "release-planner", { service: "billing", version: "2.4.0" });
  await Promise.all([...[paused, question, failed].map((id) => until(rev, id, "paused")), until(rev, completed, "completed")]);
  // release-planner: its delegation approved, its second model call rejected, which fails the run.
  await decide(rev, approvalId(failed, 1, "call_notes"), { decision: "approve" });
  await resume(rev, failed);
  await until(rev, failed, "paused");
  await decide(rev, approvalId(failed, 2, LLM_GATE_CALL_ID), { decision: "reject", reason: "Not this model call" });
  await resume(rev, failed);
  await until(rev, failed, "failed");
  await Promise.all([sub.dispose(), rev.dispose()]);
  return { paused, question, completed, failed };
}

export type Visit = {
  path: string;
  /** The permission the page asks for; without it the role is shown the 403 page. */
  need?: Permission;
  /** What the walk does there (the states a user meets the page in). */
  act?: (page: Page, role: Role) => Promise<void>;
};

export const UNKNOWN_RUN = "00000000-0000-4000-8000-000000000000";

/** Every page of app/, each with the permission it asks for (the dev-mode walk and the screenshots visit the same list). */
export function pagesOf(runs: Runs): Visit[] {
  return [
    { path: "/" },
    { path: "/runs" },
    {
      path: "/runs/new",
      need: "runs:start",
      act: async (page) => {
        // Every agent's form once, then the errors of an empty one.
        const agent = page.getByLabel("Agent");
        for (const name of await agent.locator("option").evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)))
          if (name) await agent.selectOption(name);
        await agent.selectOption("refund-desk");
        await page.getByRole("button", { name: "Start run" }).click();
        await expect(page.locator("[aria-invalid=true]").first()).toBeVisible({ timeout: 30_000 });
      },
    },
    {
      path: `/runs/${runs.paused}`,
      act: async (page, role) => {
        const card = page.getByTestId("approval-issue_refund");
        await expect(card).toBeVisible();
        if (can(role, "approvals:decide")) await card.getByRole("button", { name: "Edit arguments…" }).click();
      },
    },
    { path: `/runs/${runs.question}`, act: async (page) => expect(page.getByTestId("run-state")).toHaveText("paused") },
    { path: `/runs/${runs.completed}`, act: async (page) => expect(page.getByTestId("run-state")).toHaveText("completed") },
    { path: `/runs/${runs.failed}`, act: async (page) => expect(page.getByTestId("run-state")).toHaveText("failed") },
    {
      path: `/runs/${runs.paused}/timeline`,
      act: async (page) => {
        await page.getByText("Inspect", { exact: true }).first().click();
        // Read when opened (the timeline API, which next dev compiles on its first request), not carried in the page.
        await expect(page.getByRole("region", { name: "Payload of checkpoint 0" })).toContainText('"state"', { timeout: 30_000 });
      },
    },
    {
      path: `/runs/${runs.completed}/timeline?a=0&b=3`,
      act: async (page) => expect(page.getByText("Cannot compare")).toHaveCount(0),
    },
    {
      path: "/approvals",
      need: "approvals:decide",
      act: async (page) => {
        await expect(page.getByRole("table", { name: "Pending approvals" })).toBeVisible();
        await page.keyboard.press("?");
      },
    },
    { path: "/audit", need: "runs:read-all" },
    { path: "/admin/users", need: "users:manage" },
    { path: "/admin/tokens", need: "users:manage" },
    { path: "/admin/notifications", need: "users:manage" },
    { path: "/settings" },
  ];
}

/**
 * Closes every browser context a test opened, after it. The browser lives for the worker, so a page left
 * open kept polling and following the live stream for the rest of the run: by the 50th test one decision
 * sent the server dozens of refetches from earlier tests' pages, and a busy CI server answered in seconds.
 */
export function closeContextsAfterEach() {
  test.afterEach(async ({ browser }) => {
    await Promise.all(browser.contexts().map((c) => c.close()));
  });
}
