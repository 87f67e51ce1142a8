// Every page (the dev-mode walk's list, e2e/helpers.ts pagesOf) at 1280 and 390 px, light and dark,
// against committed baselines (toHaveScreenshot, a small tolerance), and at 390 px a check that nothing
// overflows its box: every card and table cell holds its content (scrollWidth <= clientWidth) and the
// document has no horizontal scroll. Fixed data: its own production server on a fresh database (the
// seed's users, the runs makeRuns starts and decides, two API tokens), so no other spec's runs show up;
// what still differs from run to run (run ids, times, durations, token prefixes) is replaced by fixed text
// before each shot, and the timeline's picture (drawn from real timings) is masked. Animations are off.
// Baselines are made on this machine's Chromium (Debian's): `npx playwright test --project=visual
// --update-snapshots`. That re-takes only shots beyond the tolerance; a page whose content changed a little
// (a few more rows) still matches, so after such a change use `--update-snapshots=all` and commit that
// page's files only.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { type Page, expect, test } from "@playwright/test";
import { type Role, can } from "../../lib/auth/roles";
import { UNKNOWN_RUN, apiSession, makeRuns, pagesOf, type Runs } from "../helpers";

const root = path.resolve(import.meta.dirname, "../..");
const PORT = Number(process.env.E2E_PORT ?? 3100) + 6;
const URL = `http://localhost:${PORT}`;
const MODEL_PORT = Number(process.env.E2E_PORT ?? 3100) + 99;

let server: ChildProcess | null = null;
let runs: Runs;

test.describe.configure({ mode: "serial" });
test.use({ baseURL: URL });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const env = {
    ...process.env,
    DATABASE_URL: "file:./data/e2e-visual.db",
    NEXTAUTH_URL: URL,
    AFK_DATA_DIR: "data",
    OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${MODEL_PORT}/v1`,
    NODE_ENV: "production" as const,
  };
  execFileSync(process.execPath, ["scripts/db.mjs", "reset"], { cwd: root, env, stdio: "pipe" });
  server = spawn(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(PORT)], {
    cwd: root,
    env,
    stdio: "ignore",
  });
  process.once("exit", () => server?.kill("SIGKILL"));
  for (let i = 0; ; i++) {
    if (
      await fetch(`${URL}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 240) throw new Error("the visual spec's server did not start");
    await new Promise((r) => setTimeout(r, 500));
  }
  runs = await makeRuns(URL);
  // Two API tokens, one revoked, so the tokens page shows its table (and its cards at 390 px).
  const admin = await apiSession(URL, "admin");
  const { users } = await (await admin.get("/api/admin/users")).json();
  const reviewer = users.find((u: { email: string }) => u.email === "reviewer@example.com");
  for (const body of [
    { name: "old-laptop", role: "reviewer", userId: reviewer.id },
    { name: "ci-deploy", role: "submitter" },
  ]) {
    const res = await admin.post("/api/admin/tokens", { data: body });
    expect(res.status(), await res.text()).toBe(201);
    if (body.name === "old-laptop") expect((await admin.delete(`/api/admin/tokens/${(await res.json()).id}`)).ok()).toBe(true);
  }
  await admin.dispose();
});

test.afterAll(() => {
  server?.kill("SIGTERM");
});

// Text that differs between two runs of the suite, replaced by fixed text of the same shape.
const VOLATILE: [RegExp, string][] = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "00000000-0000-4000-8000-000000000000"],
  [/\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?/g, "2026-01-01 12:00:00Z"],
  [/\b\d{4}-\d{2}-\d{2}\b/g, "2026-01-01"],
  [/\b\d{2}:\d{2}:\d{2}(\.\d{1,3})?\b/g, "12:00:00.000"],
  [/\b\d{13}\b/g, "1767268800000"],
  [/\bc[a-z0-9]{24}\b/g, "c000000000000000000000000"],
  [/\bafk_[A-Za-z0-9_-]{4,}/g, "afk_XXXXXXXX"],
  // How long ago, whichever side of 45 s the page was drawn on.
  [/\bjust now\b/g, "9 s ago"],
  // A duration, compound ones ("1 min 20 s", "2 h 5 min") as one.
  [/\b\d+(\.\d+)?\s?(h|min|ms|s|d)( \d+(\.\d+)?\s?(min|s))?\b/g, "9 s"],
  [/\b[0-9a-f]{8}\b/g, "00000000"],
];

async function steady(page: Page) {
  await page.waitForLoadState("networkidle").catch(() => {});
  // What a page loads once hydrated (a card's hand-offs) is in before the text is fixed and the shot taken.
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  await page.evaluate(
    async (patterns) => {
      await document.fonts.ready;
      const res = patterns.map(([src, flags, to]) => [new RegExp(src, flags), to] as const);
      const fix = (s: string) => res.reduce((t, [re, to]) => t.replace(re, to), s);
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.nodeValue) n.nodeValue = fix(n.nodeValue);
      for (const el of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("input, textarea")) el.value = fix(el.value);
    },
    VOLATILE.map(([re, to]) => [re.source, re.flags, to] as const),
  );
}

/** Cards and table cells whose content is wider than their box, and the document's horizontal scroll: "what: how wide". */
async function overflows(page: Page, at: string): Promise<[string, string][]> {
  const found = await page.evaluate(() => {
    const out: [string, string][] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth + 1) out.push(["document", `${doc.scrollWidth}px wide in a ${doc.clientWidth}px viewport`]);
    for (const el of document.querySelectorAll<HTMLElement>(".card, td, th")) {
      if (el.scrollWidth > el.clientWidth + 1) {
        const what = el.matches(".card") ? "card" : el.tagName.toLowerCase();
        const label =
          el.getAttribute("aria-label") ?? el.querySelector("[aria-label], h1, h2, h3, summary, th")?.textContent ?? el.textContent ?? "";
        out.push([`${what} "${label.trim().replace(/\s+/g, " ").slice(0, 40)}"`, `content ${el.scrollWidth}px in ${el.clientWidth}px`]);
      }
    }
    return out;
  });
  return found.map(([what, how]) => [`${at} ${what}`, how]);
}

// Overflows at 390 px still open (issue 27 lists them), each as the check names it, e.g.
// 'runs card "RunAgentState…"'. The check fails on any other overflow, and on a listed one once it is gone
// (delete it here then), so this list always says what a phone still scrolls sideways. None now: every
// table of many columns lays out as cards on a phone (components/card-table.tsx).
const KNOWN_OVERFLOWS: string[] = [];

const VARIANTS = [
  { width: 1280, dark: false },
  { width: 1280, dark: true },
  { width: 390, dark: false },
  { width: 390, dark: true },
];

const slug = (p: string) =>
  p
    .replace(/[0-9a-f-]{36}/g, (id) => Object.entries(runs).find(([, v]) => v === id)?.[0] ?? "run")
    .replace(/^\//, "")
    .replace(/[^a-z0-9]+/gi, "-")
    .replace(/-$/, "") || "home";

/** Each page as the role that sees it with every control: the admin for everything, the reviewer for its inbox. */
const WHO: Role = "admin";

for (const v of VARIANTS) {
  const name = `${v.width}px ${v.dark ? "dark" : "light"}`;
  test(`every page at ${name}: matches its baseline${v.width < 640 ? ", nothing overflows its box" : ""}`, async ({ browser }) => {
    test.setTimeout(120_000);
    const api = await apiSession(URL, WHO);
    const storageState = await api.storageState();
    await api.dispose();
    const ctx = await browser.newContext({
      viewport: { width: v.width, height: 900 },
      colorScheme: v.dark ? "dark" : "light",
      timezoneId: "UTC",
      locale: "en-US",
      reducedMotion: "reduce",
      storageState,
    });
    const page = await ctx.newPage();
    const found: [string, string][] = [];
    // The sign-in page, as a visitor sees it.
    const visitor = await browser.newContext({ viewport: { width: v.width, height: 900 }, colorScheme: v.dark ? "dark" : "light" });
    const vp = await visitor.newPage();
    await vp.goto("/login");
    await steady(vp);
    await expect(vp).toHaveScreenshot(`login-${v.width}-${v.dark ? "dark" : "light"}.png`, { fullPage: true });
    if (v.width < 640) found.push(...(await overflows(vp, "login")));
    await visitor.close();
    const pages = pagesOf(runs).filter((p) => p.path !== "/" && (!p.need || can(WHO, p.need)));
    for (const p of [...pages, { path: `/runs/${UNKNOWN_RUN}` }]) {
      await page.goto(p.path);
      await expect(page.locator("main")).toBeVisible();
      await steady(page);
      await expect(page, p.path).toHaveScreenshot(`${slug(p.path)}-${v.width}-${v.dark ? "dark" : "light"}.png`, {
        fullPage: true,
        mask: [page.getByTestId("timeline-picture")],
      });
      if (v.width < 640) found.push(...(await overflows(page, slug(p.path))));
    }
    await ctx.close();
    if (v.width < 640) {
      const report = found.map(([what, how]) => `${what}: ${how}`).join("\n");
      expect([...new Set(found.map(([what]) => what))].sort(), `overflows at ${v.width} px:\n${report}`).toEqual(
        [...KNOWN_OVERFLOWS].sort(),
      );
    }
  });
}
