// Web hardening and hostile content against the production build: headers, cookies, sign-out, lockout,
// cross-origin refusal, and a corpus of XSS payloads through every place the console shows run data.
import { type Browser, type Page, expect, test } from "@playwright/test";
import { DEMO_PASSWORD, signIn, signInAs, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

async function as(browser: Browser, role: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await signInAs(page, role);
  return page;
}

test("pages and API answers carry the security headers; scripts run only with the nonce", async ({ request }) => {
  for (const path of ["/login", "/api/health"]) {
    const res = await request.get(path);
    const h = res.headers();
    expect(h["x-content-type-options"]).toBe("nosniff");
    expect(h["x-frame-options"]).toBe("DENY");
    expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(h["x-powered-by"]).toBeUndefined();
    if (path.startsWith("/api/")) {
      // JSON answers are never rendered: nothing in them may load or run, nor be framed (no proxy, no nonce).
      expect(h["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
      continue;
    }
    expect(h["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(h["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(h["content-security-policy"]).not.toContain("unsafe-eval");
  }
  const html = await (await request.get("/login")).text();
  const nonce = /'nonce-([^']+)'/.exec((await request.get("/login")).headers()["content-security-policy"]!)![1];
  expect(nonce).toBeTruthy();
  // Every script tag of the page has a nonce (a different one each request).
  const tags = html.match(/<script\b[^>]*>/g) ?? [];
  expect(tags.length).toBeGreaterThan(0);
  for (const t of tags) expect(t).toMatch(/nonce="[^"]+"/);
});

test("session cookie is httpOnly and sameSite; sign-out makes a copied cookie useless", async ({ page, context, playwright, baseURL }) => {
  await signInAs(page, "operator");
  const cookie = (await context.cookies()).find((c) => c.name.includes("session-token"))!;
  expect(cookie.httpOnly).toBe(true);
  expect(cookie.sameSite).toBe("Lax");
  const copy = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { cookie: `${cookie.name}=${cookie.value}` } });
  expect((await copy.get("/api/runs")).status()).toBe(200);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  expect((await copy.get("/api/runs")).status()).toBe(401);
});

test("before its script runs, the sign-in form sends nothing: no password in a URL, a note that it needs JavaScript", async ({
  browser,
}) => {
  // A browser without JavaScript stands for the moments before hydration (a slow network, next dev compiling).
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const urls: string[] = [];
  page.on("request", (r) => urls.push(r.url()));
  const res = await page.goto("/login");
  // Said in a <noscript> (Chromium with scripts turned off by Playwright still parses it as text, not shown).
  expect(await res!.text()).toMatch(/<noscript><p[^>]*>Signing in needs JavaScript/);
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeDisabled();
  await page.getByLabel("Email").fill("reviewer@example.com");
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByLabel("Password").press("Enter");
  await page.waitForLoadState("networkidle");
  await expect(page).toHaveURL(/\/login$/);
  expect(urls.filter((u) => u.includes("password") || u.includes(encodeURIComponent(DEMO_PASSWORD)))).toEqual([]);
  await context.close();
});

test("five wrong passwords lock the account, even for the right password", async ({ browser }) => {
  const admin = await as(browser, "admin");
  const email = `lockme-${Date.now()}@example.com`;
  const res = await admin.request.post("/api/admin/users", {
    data: { email, name: "Lock Me", role: "submitter", password: "correct-horse-battery" },
  });
  expect(res.status()).toBe(201);
  const page = await (await browser.newContext()).newPage();
  // Each wrong password says how many are left; the fifth locks the account and says so.
  for (let i = 0; i < 5; i++) {
    await signIn(page, email, "wrong-password-123");
    await expect(page.getByTestId("login-error")).toHaveText(
      i < 4
        ? `Wrong email or password. ${4 - i} attempt${i === 3 ? "" : "s"} left before the account locks for 15 minutes.`
        : "Wrong email or password. Too many failed sign-ins, so the account is locked. Try again in 15 minutes.",
    );
  }
  await signIn(page, email, "correct-horse-battery");
  await expect(page.getByTestId("login-error")).toHaveText("Too many failed sign-ins. Try again in 15 minutes.");
  // Other accounts from the same address still sign in.
  await signIn(page, "reviewer@example.com", DEMO_PASSWORD);
  await expect(page.getByTestId("whoami")).toContainText("reviewer@example.com");
});

test("a cross-origin request with a session cookie is refused; server actions too", async ({ browser }) => {
  const submitter = await as(browser, "submitter");
  const before = await (await submitter.request.get("/api/runs")).json();
  const res = await submitter.request.post("/api/runs", {
    data: { agent: "deploy-bot", input: { service: "evil", version: "1.0.0", environment: "staging" } },
    headers: { origin: "http://evil.example", "sec-fetch-site": "cross-site" },
  });
  expect(res.status()).toBe(403);
  expect(await res.json()).toEqual({ error: "Cross-origin request refused" });
  // Next.js compares a server action's Origin with the host and refuses a mismatch.
  const action = await submitter.request.post("/runs/new", {
    headers: { origin: "http://evil.example", "next-action": "0".repeat(42), "content-type": "text/plain;charset=UTF-8" },
    data: "[]",
  });
  expect(action.status()).toBeGreaterThanOrEqual(400);
  const after = await (await submitter.request.get("/api/runs")).json();
  expect(after.runs.length).toBe(before.runs.length);
  // Oversized bodies are refused before parsing.
  const big = await submitter.request.post("/api/runs", { data: { agent: "refund-desk", input: { reason: "x".repeat(1_100_000) } } });
  expect(big.status()).toBe(413);
});

// What an attacker might put in a customer's question, a model's answer or a tool's output.
const XSS = [
  `<script>window.__xss=1</script>`,
  `<img src=x onerror="window.__xss=2">`,
  `<svg onload="window.__xss=3"></svg>`,
  `<iframe src="javascript:window.__xss=4"></iframe>`,
  `"><script>window.__xss=5</script>`,
  `'><img src=x onerror=window.__xss=6>`,
  `<a href="javascript:window.__xss=7">click me</a>`,
  `<body onload=window.__xss=8>`,
  `<details open ontoggle=window.__xss=9>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=10>`,
  `<style>@import 'javascript:window.__xss=11';</style>`,
  `{{constructor.constructor('window.__xss=12')()}}`,
  `javascript:window.__xss=13`,
  `<input autofocus onfocus=window.__xss=14>`,
  `<video><source onerror="window.__xss=15"></video>`,
  `<object data="javascript:window.__xss=16"></object>`,
  `<embed src="javascript:window.__xss=17">`,
  `<marquee onstart=window.__xss=18>x</marquee>`,
  `</textarea><script>window.__xss=19</script>`,
  `</script><script>window.__xss=20</script>`,
  `<![CDATA[<script>window.__xss=21</script>]]>`,
  `<!--<img src=x onerror=window.__xss=22>-->`,
  `%3Cscript%3Ewindow.__xss=23%3C/script%3E`,
  `&lt;script&gt;window.__xss=24&lt;/script&gt;`,
  `<form action="javascript:window.__xss=25"><button>go</button></form>`,
  `<meta http-equiv="refresh" content="0;url=javascript:window.__xss=26">`,
  `<base href="javascript:window.__xss=27//">`,
  `<div style="background:url(javascript:window.__xss=28)">x</div>`,
];

// Nothing but the console's own markup inside <main>: no script-capable element, no event handler, no
// javascript: URL. The timeline's own picture is the one <svg> allowed.
async function assertInert(page: Page, where: string) {
  expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss), `sentinel on ${where}`).toBeUndefined();
  const bad = await page.evaluate(() => {
    const found: string[] = [];
    for (const el of Array.from(document.querySelectorAll("main *"))) {
      const tag = el.tagName.toLowerCase();
      if (
        ["script", "img", "iframe", "object", "embed", "video", "source", "math", "style", "meta", "base", "marquee", "body"].includes(tag)
      )
        found.push(tag);
      if (tag === "svg" && el.getAttribute("role") !== "img") found.push("svg");
      for (const a of Array.from(el.attributes)) {
        if (a.name.startsWith("on")) found.push(`${tag}[${a.name}]`);
        if (/^\s*javascript:/i.test(a.value) && ["href", "src", "action", "data"].includes(a.name))
          found.push(`${tag}[${a.name}=javascript:]`);
      }
    }
    return found;
  });
  expect(bad, `unexpected elements on ${where}`).toEqual([]);
}

test(`${XSS.length} XSS payloads render as text on the run page, inbox, timeline, diff and audit log`, async ({ browser }) => {
  test.setTimeout(180_000);
  const submitter = await as(browser, "submitter");
  const reviewer = await as(browser, "reviewer");
  const chunks = [0, 1, 2, 3].map((i) => XSS.slice(i * 7, i * 7 + 7));
  const runs: string[] = [];
  for (const chunk of chunks) {
    const question = chunk.join(" ");
    const res = await submitter.request.post("/api/runs", { data: { agent: "support-writer", input: { customer: chunk[0], question } } });
    expect(res.status()).toBe(201);
    runs.push((await res.json()).id);
  }
  for (const id of runs)
    await expect
      .poll(async () => (await (await reviewer.request.get(`/api/runs/${id}`)).json()).run.state, { timeout: 15_000 })
      .toBe("paused");

  await reviewer.goto("/approvals");
  await expect(reviewer.getByTestId(`inbox-${runs[0]}:1:call_reply`)).toContainText(XSS[0]);
  await assertInert(reviewer, "inbox");

  for (const [i, id] of runs.entries()) {
    await reviewer.goto(`/runs/${id}`);
    await expect(reviewer.getByTestId("assistant-text").first()).toContainText(chunks[i][1]);
    await assertInert(reviewer, `run page ${i} (pending)`);
    const card = reviewer.getByTestId("approval-send_reply");
    if (i % 2 === 0) {
      // Reject with hostile feedback: it is shown in the decision list and goes back to the model.
      await card.getByRole("button", { name: "Reject…" }).click();
      await card.getByLabel("Reason (the model sees it)").fill(chunks[i].join(" "));
      await card.getByRole("button", { name: "Reject", exact: true }).click();
    } else {
      // Approve with hostile edited arguments: they end up in the outbox and the tool's output.
      await card.getByRole("button", { name: "Edit arguments…" }).click();
      await card.getByLabel("Body").fill(`edited ${chunks[i].join(" ")}`);
      await card.getByRole("button", { name: "Approve with these arguments" }).click();
    }
    await expect(reviewer.getByTestId("run-state")).toHaveText("completed", { timeout: 15_000 });
    await assertInert(reviewer, `run page ${i} (done)`);

    await reviewer.goto(`/runs/${id}/timeline`);
    const last = Number((await reviewer.locator('li[data-testid^="checkpoint-"]').last().getAttribute("data-testid"))!.split("-")[1]);
    await reviewer.goto(`/runs/${id}/timeline?a=0&b=${last}`);
    await expect(reviewer.getByRole("region", { name: "Checkpoint diff" })).toContainText(chunks[i][1]);
    for (const d of await reviewer.locator("details").all()) await d.evaluate((el) => ((el as HTMLDetailsElement).open = true));
    await assertInert(reviewer, `timeline ${i}`);

    await reviewer.goto(`/audit?targetId=${id}`);
    for (const d of await reviewer.locator("details").all()) await d.evaluate((el) => ((el as HTMLDetailsElement).open = true));
    await expect(reviewer.getByRole("table", { name: "Audit events" })).toContainText(i % 2 === 0 ? chunks[i][0].slice(0, 10) : "edited");
    await assertInert(reviewer, `audit ${i}`);
  }
  console.log(
    `xss: ${XSS.length} payloads × 5 views (run page before/after, inbox, timeline + diff + inspector, audit): 0 executed, 0 elements injected`,
  );
});
