import { type Page, expect } from "@playwright/test";

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
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  return page.url().split("/runs/")[1];
}
