import { type Browser, type Page, expect } from "@playwright/test";
import { IDP_NAME, IDP_PASSWORD } from "./config";

const PORT = Number(process.env.E2E_PORT ?? 3100);
const IDP_PORT = String(PORT + 98);
/** The test IdP (e2e/idp.ts), started by playwright.config.ts. */
export const idpURL = `http://localhost:${IDP_PORT}`;
/** The console's own e2e server, where passwords stay on beside the IdP. */
export const consoleURL = `http://localhost:${PORT}`;

export const emailOf = (login: string) => `${login}@example.org`;

/** Through the console's button to the IdP's own sign-in page and back. */
export async function ssoSignIn(page: Page, login: string) {
  await page.goto("/login");
  await page.getByRole("button", { name: `Sign in with ${IDP_NAME}` }).click();
  // The IdP asks who it is, unless this browser is still signed in there (then it sends it straight back).
  await page.waitForURL((u) =>
    u.port === IDP_PORT ? u.pathname.startsWith("/interaction/") : u.pathname !== "/login" || u.searchParams.has("error"),
  );
  if (new URL(page.url()).port !== IDP_PORT) return;
  await expect(page.getByRole("heading", { name: "Example IdP" })).toBeVisible();
  await page.getByLabel("Login").fill(login);
  await page.getByLabel("Password").fill(IDP_PASSWORD);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL((u) => u.port !== IDP_PORT && (u.pathname !== "/login" || u.searchParams.has("error")));
}

/** A browser of its own, signed in through the IdP as `login`, who must land with `role`. */
export async function signedIn(browser: Browser, login: string, role: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await ssoSignIn(page, login);
  await expect(page.getByTestId("whoami")).toContainText(`${emailOf(login)} ${role}`);
  return page;
}

/** Moves an IdP account between groups, as the IdP's administrator would. */
export async function setIdpGroups(login: string, groups: string[]) {
  const res = await fetch(`${idpURL}/test/accounts/${login}`, { method: "POST", body: JSON.stringify({ groups }) });
  expect(res.status).toBe(204);
}

export async function userByEmail(admin: Page, email: string): Promise<{ id: string; role: string; groups: string[]; disabled: boolean }> {
  const { users } = await (await admin.request.get("/api/admin/users")).json();
  const u = users.find((x: { email: string }) => x.email === email);
  expect(u, `user ${email}`).toBeTruthy();
  return u;
}

export type Seen = { type: string; at: number };

/** Follows an event stream from Node with an API token (as a CLI would): what arrives, and when it ends. */
export async function followWithToken(url: string, token: string) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const seen: Seen[] = [];
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  const ended = (async () => {
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Date.now();
      buf += dec.decode(value, { stream: true });
      for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
        const type = /^event: (\S+)/m.exec(buf.slice(0, i))?.[1];
        if (type) seen.push({ type, at: Date.now() });
        buf = buf.slice(i + 2);
      }
    }
  })();
  await expect.poll(() => seen.some((s) => s.type === "ready")).toBe(true);
  return { seen, ended, stop: () => reader.cancel().catch(() => {}) };
}

/** Opens a run's and the inbox's event streams in the page, as the console's tabs do, and records what they get. */
export async function followInPage(page: Page, runId: string) {
  await page.evaluate((runId) => {
    const w = window as unknown as { __live: { s: string; type: string; conn: number; at: number }[]; __es: Record<string, EventSource> };
    w.__live = [];
    w.__es = {};
    for (const [s, url] of [
      ["run", `/api/events?run=${runId}`],
      ["inbox", "/api/events?inbox=1"],
    ]) {
      const es = new EventSource(url);
      w.__es[s] = es;
      let conn = 0;
      const log = (type: string) => w.__live.push({ s, type, conn, at: Date.now() });
      for (const t of ["ready", "run", "delta", "inbox"]) es.addEventListener(t, () => log(t));
      es.addEventListener("error", () => {
        log("error");
        conn++;
      });
    }
  }, runId);
  await expect.poll(() => pageLog(page).then((l) => l.filter((e) => e.type === "ready").length)).toBe(2);
}

export const pageLog = (page: Page) =>
  page.evaluate(() => (window as unknown as { __live: { s: string; type: string; conn: number; at: number }[] }).__live);
export const pageStates = (page: Page) =>
  page.evaluate(() => {
    const es = (window as unknown as { __es: Record<string, EventSource> }).__es;
    return { run: es.run.readyState, inbox: es.inbox.readyState };
  });
