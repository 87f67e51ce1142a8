// Issue 27, a reviewer's day on a phone: the runs list, the audit log, users and API tokens lay out as
// cards at 390 px (components/card-table.tsx) and stay tables for screen readers. Each card starts with
// what identifies its row, nothing in it scrolls sideways, and every control in it is a target a finger
// hits (40 px tall) inside the page.
import { randomBytes } from "node:crypto";
import { type Browser, type Locator, type Page, expect, test } from "@playwright/test";
import { signInAs, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

async function phone(browser: Browser, role: string, dark = false): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: dark ? "dark" : "light" });
  const page = await ctx.newPage();
  await signInAs(page, role);
  return page;
}

/** A row is a card: as wide as the page's content, no cell or card wider than its box, no sideways scroll. */
async function cards(page: Page, table: string, row: Locator) {
  await expect(page.getByRole("table", { name: table })).toBeVisible();
  expect((await row.boundingBox())?.width).toBeGreaterThan(300);
  const overflow = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth - window.innerWidth,
    boxes: [...document.querySelectorAll("main td, main th, main .card")]
      .filter((e) => getComputedStyle(e).display !== "none" && e.scrollWidth > e.clientWidth + 1)
      .map((e) => e.outerHTML.slice(0, 120)),
  }));
  expect(overflow, table).toEqual({ page: 0, boxes: [] });
  for (const control of await page.getByRole("table", { name: table }).locator("tbody :is(a, button, select, input, summary)").all()) {
    const box = await control.boundingBox();
    const what = await control.evaluate((e) => e.outerHTML.slice(0, 100));
    expect(box?.height, `${table}: ${what} is 40 px tall`).toBeGreaterThanOrEqual(40);
    expect(box!.x + box!.width, `${table}: ${what} inside the page`).toBeLessThanOrEqual(390);
  }
}

/** The first box is above the second (on an earlier line of the card). */
async function above(first: Locator, second: Locator) {
  const [a, b] = [await first.boundingBox(), await second.boundingBox()];
  expect(a!.y + a!.height).toBeLessThanOrEqual(b!.y + 1);
}

test("the runs list and the audit log on a phone: cards led by what identifies each row", async ({ browser }) => {
  const admin = await phone(browser, "admin");
  const res = await admin.request.post("/api/runs", { data: { agent: "order-status", input: { order_id: "ORD-1001" } } });
  expect(res.status()).toBe(201);
  const { id } = await res.json();

  await admin.goto(`/runs?q=${id}`);
  const run = admin.locator(`tr:has(a[href="/runs/${id}"])`);
  await cards(admin, "Runs", run);
  const agent = run.getByRole("cell", { name: "order-status" });
  const link = run.getByRole("link", { name: id.slice(0, 8) });
  // Agent, state and the run's link on the first line; step, submitter, time, tokens and cost under them.
  expect(Math.abs((await agent.boundingBox())!.y - (await link.boundingBox())!.y)).toBeLessThan(12);
  await above(agent, run.getByText("Started"));
  await link.click();
  await expect(admin).toHaveURL(new RegExp(`/runs/${id}$`));

  await admin.goto(`/audit?targetId=${id}`);
  const event = admin.getByTestId("audit-run.start");
  await cards(admin, "Audit events", event);
  await above(event.getByText("started the run"), event.getByText("admin@example.com"));
  // The target by name ("order-status run b312c291"), linking to the run.
  const target = event.getByRole("cell").filter({ has: admin.locator(`a[href="/runs/${id}"]`) });
  await expect(target).toContainText(`order-status run ${id.slice(0, 8)}`);
  await above(event.getByText("admin@example.com"), target);
  await event.getByText("before / after").click();
  await expect(event.getByRole("region", { name: "JSON" })).toContainText("order-status");
});

for (const dark of [false, true])
  test(`users and API tokens on a phone${dark ? " (dark)" : ""}: role, groups, disable and revoke a tap away`, async ({ browser }) => {
    const tag = randomBytes(3).toString("hex");
    const admin = await phone(browser, "admin", dark);
    const email = `phone.${tag}@example.com`;
    const made = await admin.request.post("/api/admin/users", {
      data: { email, name: `Phone ${tag}`, role: "submitter", password: "phone-password-1" },
    });
    expect(made.status()).toBe(201);

    await admin.goto("/admin/users");
    const user = admin.getByTestId(`user-${email}`);
    await cards(admin, "Users", user);
    await above(user.getByRole("cell", { name: email, exact: true }), user.getByLabel(`Role of ${email}`));
    await user.getByLabel(`Role of ${email}`).selectOption("operator");
    await expect
      .poll(
        async () =>
          (await (await admin.request.get("/api/admin/users")).json()).users.find((u: { email: string }) => u.email === email).role,
      )
      .toBe("operator");
    await user.getByLabel(`Groups of ${email}`).fill("ops");
    await user.getByRole("button", { name: "Save" }).click();
    await expect(user.getByLabel(`Groups of ${email}`)).toHaveValue("ops");
    await user.getByRole("button", { name: "Disable" }).click();
    await expect(user).toContainText("disabled");
    await user.getByRole("button", { name: "Enable" }).click();
    await expect(user).toContainText("active");

    const name = `phone-${tag}`;
    expect((await admin.request.post("/api/admin/tokens", { data: { name, role: "submitter" } })).status()).toBe(201);
    await admin.goto("/admin/tokens");
    const token = admin.getByTestId(`token-${name}`);
    await cards(admin, "API tokens", token);
    await above(token.getByRole("cell", { name, exact: true }), token.getByText("Created"));
    await admin.getByRole("button", { name: `Revoke ${name}` }).click();
    await expect(token).toContainText("revoked");
  });
