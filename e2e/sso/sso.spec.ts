// Single sign-on in Chromium against a real OpenID Connect provider (e2e/idp.ts, oidc-provider) on a
// server where passwords are off: each IdP group signs in as its role with its routing groups, the first
// sign-in creates the user (audited), people in no admitted group are refused and told why, the routing
// groups from the IdP decide who may approve a refund routed to finance, and a group change at the IdP
// applies at the next sign-in.
import { expect, test } from "@playwright/test";
import { approvalId } from "../../lib/runner/ids";
import { DEMO_PASSWORD, signIn, closeContextsAfterEach } from "../helpers";
import { IDP_NAME } from "./config";
import { consoleURL, emailOf, setIdpGroups, signedIn, ssoSignIn, userByEmail } from "./helpers";

closeContextsAfterEach();

test("the sign-in page offers only the IdP; a password sign-in is refused", async ({ page }) => {
  await page.goto("/login");
  await expect(page.getByRole("button", { name: `Sign in with ${IDP_NAME}` })).toBeVisible();
  await expect(page.getByLabel("Password")).toHaveCount(0);
  const { csrfToken } = await (await page.request.get("/api/auth/csrf")).json();
  await page.request.post("/api/auth/callback/credentials", {
    form: { csrfToken, email: "admin@example.com", password: DEMO_PASSWORD, json: "true" },
  });
  expect(await (await page.request.get("/api/auth/session")).json()).toEqual({});
  expect((await page.request.get("/api/runs")).status()).toBe(401);
});

test("where passwords stay on, both ways sign in: the demo users by password, IdP users only through the IdP", async ({ browser }) => {
  test.setTimeout(60_000);
  const local = await (await browser.newContext({ baseURL: consoleURL })).newPage();
  await local.goto("/login");
  await expect(local.getByRole("button", { name: `Sign in with ${IDP_NAME}` })).toBeVisible();
  await signIn(local, "reviewer@example.com");
  await expect(local.getByTestId("whoami")).toContainText("reviewer@example.com reviewer");

  const idp = await (await browser.newContext({ baseURL: consoleURL })).newPage();
  await ssoSignIn(idp, "bob");
  await expect(idp.getByTestId("whoami")).toContainText(`${emailOf("bob")} reviewer`);
  // bob has no password here: whatever he types is wrong.
  await idp.context().clearCookies();
  await signIn(idp, emailOf("bob"), "any-password-at-all");
  // Told as any wrong password is: first of five attempts on this email.
  await expect(idp.getByTestId("login-error")).toHaveText(
    "Wrong email or password. 4 attempts left before the account locks for 15 minutes.",
  );
  for (const p of [local, idp]) await p.context().close();
});

test("each IdP group signs in as its role with its routing groups; the first sign-in creates the user, audited", async ({ browser }) => {
  test.setTimeout(90_000);
  const alice = await signedIn(browser, "alice", "admin");
  await expect(alice).toHaveURL(/\/admin\/users$/);
  const bob = await signedIn(browser, "bob", "reviewer");
  await expect(bob).toHaveURL(/\/approvals$/);
  const carol = await signedIn(browser, "carol", "reviewer");
  const dave = await signedIn(browser, "dave", "submitter");
  await expect(dave).toHaveURL(/\/runs\/new$/);

  await alice.goto("/admin/users");
  await expect(alice.getByTestId(`user-${emailOf("bob")}`).getByLabel(`Groups of ${emailOf("bob")}`)).toHaveValue("finance");
  await expect(alice.getByTestId(`user-${emailOf("carol")}`).getByLabel(`Groups of ${emailOf("carol")}`)).toHaveValue("ops");
  const { events } = await (await alice.request.get(`/api/audit?action=user.create&actor=${emailOf("bob")}`)).json();
  expect(events).toHaveLength(1);
  expect(events[0].data).toMatchObject({
    via: "sso",
    role: "reviewer",
    groups: ["finance"],
    idp_groups: ["finance-approvers", "everyone"],
  });
  for (const p of [alice, bob, carol, dave]) await p.context().close();
});

test("someone in no admitted group is refused and told why; an unverified email does not take over a local user", async ({ page }) => {
  await ssoSignIn(page, "erin");
  await expect(page).toHaveURL(/\/login\?error=SsoNoGroup$/);
  await expect(page.getByTestId("login-error")).toHaveText(
    "Your account is in none of the groups this console admits. Ask your administrator.",
  );
  expect((await page.request.get("/api/runs")).status()).toBe(401);

  // mallory's IdP account says admin@example.com (the seeded local admin) without having verified it.
  await page.context().clearCookies();
  await ssoSignIn(page, "mallory");
  await expect(page).toHaveURL(/\/login\?error=SsoEmailTaken$/);
  expect((await page.request.get("/api/runs")).status()).toBe(401);
});

test("the IdP's groups decide who may approve a refund routed to finance: 403 for ops, approved by finance", async ({ browser }) => {
  test.setTimeout(90_000);
  const dave = await signedIn(browser, "dave", "submitter");
  const started = await dave.request.post("/api/runs", {
    data: { agent: "refund-desk", input: { order_id: "ORD-1001", amount_cents: 250000, reason: "Lost in transit" } },
  });
  expect(started.status()).toBe(201);
  const { id } = await started.json();
  await expect.poll(async () => (await (await dave.request.get(`/api/runs/${id}`)).json()).run.state, { timeout: 20_000 }).toBe("paused");
  const refund = approvalId(id, 2, "call_refund");
  const decide = (p: typeof dave) =>
    p.request.post(`/api/approvals/${encodeURIComponent(refund)}/decision`, { data: { decision: "approve" } });

  const carol = await signedIn(browser, "carol", "reviewer");
  const refused = await decide(carol);
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error).toBe("This approval is routed to finance; you are in none of them");
  const bob = await signedIn(browser, "bob", "reviewer");
  expect((await decide(bob)).status()).toBe(200);
  for (const p of [dave, carol, bob]) await p.context().close();
});

test("a group change at the IdP applies at the next sign-in: new role and routing groups, audited", async ({ browser }) => {
  test.setTimeout(90_000);
  const alice = await signedIn(browser, "alice", "admin");
  try {
    await setIdpGroups("carol", ["finance-approvers", "ops-reviewers"]);
    const carol = await signedIn(browser, "carol", "reviewer");
    expect((await userByEmail(alice, emailOf("carol"))).groups).toEqual(["finance", "ops"]);
    await setIdpGroups("carol", ["staff"]);
    await ssoSignIn(carol, "carol");
    await expect(carol.getByTestId("whoami")).toContainText(`${emailOf("carol")} submitter`);
    expect(await userByEmail(alice, emailOf("carol"))).toMatchObject({ role: "submitter", groups: [] });
    const { events } = await (await alice.request.get(`/api/audit?action=user.update&actor=${emailOf("carol")}`)).json();
    expect(events[0].data).toMatchObject({ via: "sso", before: { role: "reviewer" }, after: { role: "submitter", groups: [] } });
    await carol.context().close();
  } finally {
    await setIdpGroups("carol", ["ops-reviewers", "everyone"]);
    await alice.context().close();
  }
});
