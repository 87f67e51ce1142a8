import { expect, test } from "@playwright/test";
import { signIn, signInAs, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

const landing: Record<string, { path: string; heading: string }> = {
  admin: { path: "/admin/users", heading: "Users" },
  reviewer: { path: "/approvals", heading: "Approvals" },
  operator: { path: "/runs", heading: "Runs" },
  submitter: { path: "/runs/new", heading: "Start a run" },
};

for (const [role, { path, heading }] of Object.entries(landing)) {
  test(`${role} signs in and lands on ${path}`, async ({ page }) => {
    await signInAs(page, role);
    await expect(page).toHaveURL(new RegExp(`${path}$`));
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
  });
}

test("a wrong password shows an error and creates no session", async ({ page, context }) => {
  await signIn(page, "admin@example.com", "not-the-password");
  // Other specs may have failed on admin before: the count is any of 4..1, always with the lock's length.
  await expect(page.getByTestId("login-error")).toHaveText(
    /^Wrong email or password\. ([2-4] attempts|1 attempt) left before the account locks for 15 minutes\.$/,
  );
  const cookies = await context.cookies();
  expect(cookies.find((c) => c.name.includes("session-token"))).toBeUndefined();
  await page.goto("/admin/users");
  await expect(page).toHaveURL(/\/login/);
});

for (const path of ["/", "/admin/users", "/approvals", "/runs", "/runs/new"]) {
  test(`an unauthenticated visit to ${path} redirects to /login`, async ({ page }) => {
    await page.goto(path);
    await expect(page).toHaveURL(/\/login/);
    await expect(page.getByRole("heading", { name: "Sign in to AFK Console" })).toBeVisible();
  });
}

test("unauthenticated API calls get 401 JSON", async ({ request }) => {
  const res = await request.get("/api/admin/users");
  expect(res.status()).toBe(401);
  expect(await res.json()).toEqual({ error: "Sign in required" });
});

test("a submitter is refused with 403 on the admin page and its actions", async ({ page }) => {
  await signInAs(page, "submitter");
  const res = await page.goto("/admin/users");
  expect(res?.status()).toBe(403);
  await expect(page.getByText("403 — not allowed")).toBeVisible();
  const api = await page.request.post("/api/admin/users", {
    data: { email: "sneaky@example.com", name: "Sneaky", role: "admin", password: "password123" },
  });
  expect(api.status()).toBe(403);
  await expect(page.getByRole("link", { name: "Users" })).toHaveCount(0);
});

test("an admin adds a user who can then sign in; a disabled user is signed out at once", async ({ page, browser }) => {
  await signInAs(page, "admin");
  await page.goto("/admin/users");
  const form = page.getByRole("form", { name: "Add user" });
  await form.getByLabel("Email").fill("not-an-email");
  await form.getByLabel("Name").fill("New Reviewer");
  await form.getByLabel("Initial password").fill("reviewer-pass-1");
  await form.getByRole("button", { name: "Add user" }).click();
  await expect(page.locator("#email-error")).toBeVisible();

  await form.getByLabel("Email").fill("new.reviewer@example.com");
  await form.getByLabel("Role").selectOption("reviewer");
  await form.getByRole("button", { name: "Add user" }).click();
  await expect(page.getByText("Added new.reviewer@example.com")).toBeVisible();
  await expect(page.getByTestId("user-new.reviewer@example.com")).toBeVisible();

  const other = await browser.newContext();
  const p2 = await other.newPage();
  await signIn(p2, "new.reviewer@example.com", "reviewer-pass-1");
  await expect(p2).toHaveURL(/\/approvals$/);

  await page.getByTestId("user-new.reviewer@example.com").getByRole("button", { name: "Disable" }).click();
  await expect(page.getByTestId("user-new.reviewer@example.com")).toContainText("disabled");
  await p2.goto("/approvals");
  await expect(p2).toHaveURL(/\/login/);
  await other.close();
});

test("wrong passwords count down the attempts left, the same for an email that does not exist", async ({ page }) => {
  const stamp = Date.now();
  const messages = async (email: string) => {
    const said: string[] = [];
    for (let i = 0; i < 6; i++) {
      await signIn(page, email, "not-the-password");
      const error = page.getByTestId("login-error");
      await expect(error).toBeVisible();
      said.push((await error.textContent()) ?? "");
    }
    return said;
  };
  const unknown = await messages(`nobody-${stamp}@example.com`);
  expect(unknown).toEqual([
    "Wrong email or password. 4 attempts left before the account locks for 15 minutes.",
    "Wrong email or password. 3 attempts left before the account locks for 15 minutes.",
    "Wrong email or password. 2 attempts left before the account locks for 15 minutes.",
    "Wrong email or password. 1 attempt left before the account locks for 15 minutes.",
    "Wrong email or password. Too many failed sign-ins, so the account is locked. Try again in 15 minutes.",
    "Too many failed sign-ins. Try again in 15 minutes.",
  ]);
  for (const m of unknown) expect(m).not.toContain("(s)");
});
