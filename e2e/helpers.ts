import { type Page, expect } from "@playwright/test";

export const DEMO_PASSWORD = process.env.AFK_DEMO_PASSWORD ?? "afk-demo-2026";

export async function signIn(page: Page, email: string, password = DEMO_PASSWORD) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export async function signInAs(page: Page, role: string) {
  await signIn(page, `${role}@example.com`);
  await expect(page.getByTestId("whoami")).toContainText(`${role}@example.com`);
}
