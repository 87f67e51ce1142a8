// Development mode, where every team adding an agent works: `next dev` reports what a production build
// keeps quiet (hydration mismatches, non-plain props crossing to Client Components, missing keys, bad
// ARIA). This walks every page of app/ — runs paused for an approval and for a question, a completed and
// a failed run, the start form with its errors, an approval being edited, the inbox and its key help, a
// timeline with a payload open, a diff, the login form, the 403 and 404 pages — and fails on any
// browser-console error or warning, any page error, any error or warning line in the dev server's log, and
// any issue on Next's dev overlay. The admin walks every page on a phone in dark mode on a slow network (so
// pages hydrate after their data went stale), the reviewer its own pages on a desktop in light mode;
// AFK_DEV_WALK=full walks every role in every variant.
import { type Browser, type BrowserContext, type ConsoleMessage, type Page, expect, test } from "@playwright/test";
import { type Role, can } from "../../lib/auth/roles";
import { DEMO_PASSWORD, UNKNOWN_RUN, apiSession, makeRuns, pagesOf } from "../helpers";
import { DevServer } from "./dev-server";

const PORT = Number(process.env.E2E_PORT ?? 3100) + 5;
const MODEL_PORT = Number(process.env.E2E_PORT ?? 3100) + 99;
const server = new DevServer(PORT, {
  DATABASE_URL: "file:./data/e2e-dev.db",
  // As a first `npm run dev` runs: no NEXTAUTH_URL (next-auth warned about it at the first sign-in).
  NEXTAUTH_URL: undefined,
  AFK_DATA_DIR: "data",
  OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${MODEL_PORT}/v1`,
});

type Variant = { width: number; dark: boolean; slow: boolean };
const VARIANTS: Variant[] = [
  { width: 1280, dark: false, slow: false },
  { width: 390, dark: true, slow: true },
  { width: 1280, dark: true, slow: false },
  { width: 390, dark: false, slow: true },
];
const ROLES: Role[] = ["admin", "reviewer", "operator", "submitter"];
const full = process.env.AFK_DEV_WALK === "full";
// How long the slow network holds a page's scripts: past the 2 s the console's queries count as fresh.
const SLOW_SCRIPTS_MS = 2_500;

// Turbopack times a file write into .next/dev when it starts and says so when the disk was slow: a fact
// about the machine (a busy CI box), not about the app. The only server lines let through.
const MACHINE_NOTICES = [/^⚠ Slow filesystem detected\./, /^See more: https:\/\/nextjs\.org\/docs\/app\/guides\/local-development$/];

test.describe.configure({ mode: "serial" });
test.use({ baseURL: server.url });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  await server.start();
});
test.afterEach(async () => {
  const info = test.info();
  await info.attach("next dev log", { body: server.text(), contentType: "text/plain" });
  if (info.status !== info.expectedStatus) console.log(`next dev log:\n${server.text()}`);
});
test.afterAll(async () => {
  await server.stop();
});

/** Error and warning lines of the dev server's log from line `from` on. */
function serverProblems(from = 0): string[] {
  return server.lines
    .slice(from)
    .filter(({ stream, text }) => {
      const line = text.trim();
      if (MACHINE_NOTICES.some((n) => n.test(line))) return false;
      if (stream === "stderr") return true;
      // The app's JSON log lines say their level; Next marks its warnings ⚠ and its errors ⨯.
      if (line.startsWith("{")) return /"level":"(warn|error)"/.test(line);
      return /⚠|⨯|\berror\b|\bwarn(ing)?\b/i.test(line);
    })
    .map((l) => `${l.stream}: ${l.text}`);
}

const problems: string[] = [];
// What the page is showing now, and the status its document answered with on purpose (403, 404).
let at = { label: "", url: "", status: 200 };

function watch(page: Page) {
  page.on("console", (m: ConsoleMessage) => {
    if (m.type() !== "error" && m.type() !== "warning") return;
    // Chromium logs a document's own 403 or 404 as a failed resource: that status is the page's answer.
    const own =
      m.location().url === at.url &&
      m.text() ===
        `Failed to load resource: the server responded with a status of ${at.status} (${at.status === 403 ? "Forbidden" : "Not Found"})`;
    if (!own) problems.push(`${at.label}: browser console ${m.type()}: ${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => problems.push(`${at.label}: page error: ${e.message}`));
}

// The messages of next dev's HMR socket that change a page's code or reload it.
const HOT_UPDATES = new Set(["turbopack-message", "serverComponentChanges", "reloadPage", "addedPage", "removedPage"]);
const heldBack: string[] = [];

function messageType(json: string): string | undefined {
  try {
    return JSON.parse(json).type;
  } catch {
    return undefined;
  }
}

async function contextFor(browser: Browser, v: Variant, storageState?: Awaited<ReturnType<BrowserContext["storageState"]>>) {
  const ctx = await browser.newContext({
    viewport: { width: v.width, height: 900 },
    colorScheme: v.dark ? "dark" : "light",
    // Not the server's zone or language: a date formatted for the reader differs between the two.
    timezoneId: "Pacific/Auckland",
    locale: "de-DE",
    storageState,
  });
  // No hot updates: the walk edits no file, so it has none to take, yet on a busy machine Turbopack pushed
  // one to a page right after it subscribed (its compiler settling while other routes compiled), and the
  // page applied it by reloading itself, again and again (/login loaded 20+ times in two minutes). The
  // socket stays connected otherwise: React's debug channel and the errors to show travel on it.
  await ctx.routeWebSocket(/\/_next\/hmr/, (ws) => {
    const server = ws.connectToServer();
    server.onMessage((message) => {
      const type = typeof message === "string" ? messageType(message) : undefined;
      if (type && HOT_UPDATES.has(type)) heldBack.push(`${at.label}: ${type}`);
      else ws.send(message);
    });
  });
  if (v.slow)
    // Turbopack's runtime chunk: the others wait for it, so holding it alone holds hydration back.
    await ctx.route(/\/_next\/static\/chunks\/turbopack-[^/]+\.js(\?|$)/, async (route) => {
      await new Promise((r) => setTimeout(r, SLOW_SCRIPTS_MS));
      await route.continue();
    });
  return ctx;
}

/** Waits until React has hydrated the element (next dev serves a page's HTML long before its scripts run). */
async function hydrated(page: Page, selector: string) {
  await page.waitForFunction(
    (sel) => {
      const el = document.querySelector(sel);
      return !!el && Object.keys(el).some((k) => k.startsWith("__reactProps"));
    },
    selector,
    { timeout: 120_000 },
  );
}

/** Signs in through the form (the login page's own walk). */
async function signInAs(page: Page, role: string) {
  await page.getByLabel("Email").fill(`${role}@example.com`);
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("whoami")).toContainText(`${role}@example.com`, { timeout: 120_000 });
}

async function visit(page: Page, path: string, label: string, status: number, act?: () => Promise<void>) {
  const mark = server.lines.length;
  const before = problems.length;
  at = { label, url: new URL(path, server.url).href, status };
  const res = await page.goto(path);
  at.url = page.url();
  expect(res?.status(), `${label}: status`).toBe(status);
  await hydrated(page, "main");
  if (status === 403) await expect(page.getByRole("heading", { name: "403 — not allowed" })).toBeVisible();
  await act?.();
  // Hydration and effects report in the next moments; the overlay counts what it was told.
  await page.waitForTimeout(300);
  const issues = page.locator("[data-issues-count]");
  if (await issues.count()) problems.push(`${label}: Next's dev overlay shows ${await issues.first().textContent()} issue(s)`);
  for (const l of serverProblems(mark)) problems.push(`${label}: server ${l}`);
  if (problems.length > before) console.log(`${label}: ${problems.length - before} problem(s)`);
}

test("every page in next dev: no error or warning in the browser, the server log or the dev overlay", async ({ browser }) => {
  test.setTimeout(full ? 1_800_000 : 900_000);
  const t0 = Date.now();
  const lap = (what: string) => console.log(`dev walk: ${what} at ${((Date.now() - t0) / 1000).toFixed(0)} s`);

  // next dev compiles a page or route on its first request: all of them at once, while the runs the walk
  // needs are started and decided, so that the walk itself waits for no compiler.
  const warm = async () => {
    const admin = await apiSession(server.url, "admin");
    const none = { paused: UNKNOWN_RUN, question: UNKNOWN_RUN, completed: UNKNOWN_RUN, failed: UNKNOWN_RUN };
    await Promise.all(["/login", ...pagesOf(none).map((v) => v.path)].map((p) => admin.get(p, { timeout: 600_000 })));
    await admin.dispose();
    lap("pages compiled");
  };
  const [runs] = await Promise.all([makeRuns(server.url), warm()]);
  lap("runs ready");

  // The login page as a visitor meets it, and its form signing the admin in.
  const login = await contextFor(browser, VARIANTS[0]);
  const lp = await login.newPage();
  watch(lp);
  await visit(lp, "/", "anonymous / (to /login)", 200);
  // By its loopback address too (as a NEXTAUTH_URL of http://127.0.0.1:… has it): next dev serves its
  // scripts and HMR socket there as well, so the page hydrates and its form signs in by script.
  await visit(lp, `${server.url.replace("localhost", "127.0.0.1")}/login`, "anonymous /login at 127.0.0.1", 200, () =>
    expect(lp.getByRole("button", { name: "Sign in" })).toBeEnabled(),
  );
  await visit(lp, "/login", "anonymous /login", 200, async () => {
    await signInAs(lp, "admin");
    await hydrated(lp, "main");
  });
  await login.close();

  // Every page as the admin (who may do everything, so every control is there) on a phone in dark mode
  // on a slow network; the reviewer's pages, its 403 and a 404 on a desktop in light mode. The other
  // roles and variants: AFK_DEV_WALK=full.
  const walks: [Role, Variant[]][] = full
    ? ROLES.map((r) => [r, VARIANTS])
    : [
        ["admin", [VARIANTS[1]]],
        ["reviewer", [VARIANTS[0]]],
      ];
  for (const [role, variants] of walks) {
    const api = await apiSession(server.url, role);
    const state = await api.storageState();
    await api.dispose();
    for (const variant of variants) {
      const ctx = await contextFor(browser, variant, state);
      const page = await ctx.newPage();
      watch(page);
      const name = `${role} ${variant.width}px ${variant.dark ? "dark" : "light"}${variant.slow ? " slow" : ""}`;
      const pages = pagesOf(runs);
      for (const v of pages.filter((p) => !p.need || can(role, p.need)))
        await visit(page, v.path, `${name} ${v.path}`, 200, v.act && (() => v.act!(page, role)));
      // The 403 page, where the role has one, and the 404 of a run that does not exist.
      const denied = pages.find((p) => p.need && !can(role, p.need));
      if (denied) await visit(page, denied.path, `${name} ${denied.path} (403)`, 403);
      await visit(page, `/runs/${UNKNOWN_RUN}`, `${name} unknown run (404)`, 404);
      await ctx.close();
    }
    lap(`${role} walked`);
  }
  if (heldBack.length) console.log(`dev walk: hot updates held back:\n${heldBack.join("\n")}`);
  // Anything the server says after the last page (a late render, a background run) counts too.
  await new Promise((r) => setTimeout(r, 1000));
  const all = [...problems, ...serverProblems().map((l) => `server log: ${l}`)];
  expect(all, all.join("\n")).toEqual([]);
});
