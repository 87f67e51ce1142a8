// The runs list pages by 25 runs (app/runs/page.tsx) and works without JavaScript as a plain page: the
// filter form is a GET form, "Next page →" a link whose cursor keeps the filters, and no run shows twice.
import { expect, test } from "@playwright/test";
import { apiSession, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

test("the runs list pages by 25 without JavaScript: the filters kept, the next page's runs all new", async ({ browser, baseURL }) => {
  const api = await apiSession(baseURL!, "admin");
  // More than a page of the admin's order-status runs (other specs may have started some too).
  for (let i = 0; i < 26; i++) {
    const res = await api.post("/api/runs", { data: { agent: "order-status", input: { order_id: `ORD-${2000 + i}` } } });
    expect(res.status(), await res.text()).toBe(201);
  }
  const context = await browser.newContext({ javaScriptEnabled: false, storageState: await api.storageState() });
  await api.dispose();
  const page = await context.newPage();
  await page.goto("/runs");
  await page.getByLabel("Agent").selectOption("order-status");
  await page.getByLabel("Submitter").fill("admin@example.com");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/agent=order-status/);

  // A run's row: the table's row with the link to the run (its href names the run).
  const rows = page.getByRole("table", { name: "Runs" }).locator("tbody > tr:has(a[href^='/runs/'])");
  const ids = async () => Promise.all((await rows.all()).map(async (r) => (await r.getByRole("link").getAttribute("href"))!));
  await expect(rows).toHaveCount(25);
  const first = await ids();
  await page.getByRole("link", { name: "Next page →" }).click();
  await expect(page).toHaveURL(/cursor=.*/);
  expect(new URL(page.url()).searchParams.get("agent")).toBe("order-status");
  expect(new URL(page.url()).searchParams.get("submitter")).toBe("admin@example.com");
  await expect(rows.first()).toBeVisible();
  const second = await ids();
  expect(second.filter((id) => first.includes(id))).toEqual([]);
  for (const row of await rows.all()) await expect(row.getByRole("cell", { name: /^order-status\b/ })).toBeVisible();
  await context.close();
});
