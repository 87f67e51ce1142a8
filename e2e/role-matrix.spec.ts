// Every API route and every server action × every kind of caller, over real HTTP against the production
// build: no session, each role's session, a revoked API token, a disabled user's live session. Each cell
// asserts the status, and a denied cell asserts that nothing in the database changed.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { type APIRequestContext, type Browser, expect, test } from "@playwright/test";
import { signIn, signInAs, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

const dbFile = path.resolve((process.env.E2E_DATABASE_URL ?? "file:./data/e2e.db").replace(/^file:/, ""));

// Everything a denied call could have touched.
function fingerprint(): string {
  const db = new Database(dbFile, { readonly: true });
  try {
    const q = (sql: string) => JSON.stringify(db.prepare(sql).all());
    return createHash("sha256")
      .update(
        q(`SELECT count(*) n FROM Run`) +
          q(`SELECT id, state FROM Run ORDER BY id`) +
          q(`SELECT count(*) n FROM AuditEvent`) +
          q(`SELECT id, revokedAt FROM ApiToken ORDER BY id`),
      )
      .update(
        q(`SELECT id, role, disabled, sessionVersion FROM User ORDER BY id`) +
          q(`SELECT id, record FROM Approval ORDER BY id`) +
          q(`SELECT count(*) n FROM StateEntry`) +
          q(`SELECT (SELECT count(*) FROM SavedView) v, (SELECT count(*) FROM ApprovalAssignment) a,
                    (SELECT count(*) FROM ApprovalComment) c, (SELECT count(*) FROM Delegation) d,
                    (SELECT count(*) FROM NotifyPreference) p`),
      )
      .digest("hex");
  } finally {
    db.close();
  }
}

// Runs not at rest; those an earlier spec left running in the shared database are not the matrix's.
function moving(): string[] {
  const db = new Database(dbFile, { readonly: true });
  try {
    const rows = db.prepare(`SELECT id FROM Run WHERE state IN ('pending', 'running', 'cancelling')`).all() as { id: string }[];
    return rows.map((r) => r.id).filter((id) => !movingBefore.has(id));
  } finally {
    db.close();
  }
}
let movingBefore = new Set<string>();

// A run an allowed cell started or resumed is at rest (paused or finished) and nothing changed for 300 ms:
// a quiet spell alone is not enough under load, where a run can sit between steps longer than that.
async function settle() {
  let last = fingerprint();
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 150));
    const now = fingerprint();
    if (now === last && moving().length === 0) {
      await new Promise((r) => setTimeout(r, 150));
      if (fingerprint() === now) return;
    }
    last = now;
  }
  throw new Error("the database did not settle within 15 s");
}

type Actor = "anonymous" | "admin" | "reviewer" | "operator" | "submitter" | "revoked-token" | "disabled-user";
const ACTORS: Actor[] = ["anonymous", "admin", "reviewer", "operator", "submitter", "revoked-token", "disabled-user"];
const ROLES = ["admin", "reviewer", "operator", "submitter"] as const;

type Targets = {
  own: string;
  adminRun: string;
  paused: string;
  cancel: string;
  done: string;
  decision: string;
  token: string;
  user: string;
  /** A pending request on the submitter's run that only the hand-off cells touch. */
  pending: string;
  /** The admin's saved view. */
  view: string;
};
type Case = {
  name: string;
  allowed: readonly (typeof ROLES)[number][];
  // Status for an allowed role when it is not simply "not 401/403" (e.g. a submitter reading another's run).
  special?: Partial<Record<Actor, number>>;
  call: (c: APIRequestContext, t: Targets, actor: Actor) => Promise<number>;
};

// The event stream never ends: its status comes with the headers, then the caller hangs up. fetch (not
// the request context, which reads whole bodies) with the context's own headers.
const headersOf = new WeakMap<APIRequestContext, Record<string, string>>();
let matrixBase = "";
const stream = (p: (t: Targets) => string) => async (c: APIRequestContext, t: Targets) => {
  const ctl = new AbortController();
  const res = await fetch(new URL(p(t), matrixBase), { headers: headersOf.get(c) ?? {}, signal: ctl.signal });
  ctl.abort();
  return res.status;
};
const get = (p: (t: Targets) => string) => async (c: APIRequestContext, t: Targets) => (await c.get(p(t))).status();
const post =
  (p: (t: Targets) => string, body: (t: Targets, a: Actor) => unknown = () => ({})) =>
  async (c: APIRequestContext, t: Targets, a: Actor) =>
    (await c.post(p(t), { data: body(t, a) })).status();

// Server actions are called exactly as the browser calls them: POST to the page with the action's id.
const manifest = () =>
  JSON.parse(readFileSync(".next/server/server-reference-manifest.json", "utf8")).node as Record<string, { exportedName: string }>;
const actionId = (name: string) => Object.entries(manifest()).find(([, v]) => v.exportedName === name)![0];
function action(name: string, page: (t: Targets) => string, args: (t: Targets, a: Actor) => unknown[]) {
  return async (c: APIRequestContext, t: Targets, a: Actor) => {
    const res = await c.post(page(t), {
      headers: { "next-action": actionId(name), "content-type": "text/plain;charset=UTF-8", accept: "text/x-component" },
      data: JSON.stringify(args(t, a)),
      maxRedirects: 0,
    });
    // Without a session the proxy sends the caller to sign in before any page code (or action) runs.
    if (res.status() >= 300 && res.status() < 400 && /\/login/.test(res.headers().location ?? "")) return 401;
    const text = await res.text();
    if (res.status() >= 400) return res.status();
    if (/"ok":true/.test(text)) return 200;
    const m = /"ok":false,"status":(\d+)/.exec(text);
    return m ? Number(m[1]) : 599;
  };
}

const uniq = (a: Actor) => `${a}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
const startBody = () => ({ agent: "deploy-bot", input: { service: "matrix", version: "1.0.0", environment: "staging" } });

const CASES: Case[] = [
  { name: "GET /api/runs", allowed: ROLES, call: get(() => "/api/runs") },
  { name: "POST /api/runs", allowed: ["admin", "submitter"], call: post(() => "/api/runs", startBody) },
  { name: "GET /api/runs/{own}", allowed: ROLES, call: get((t) => `/api/runs/${t.own}`) },
  { name: "GET /api/runs/{another's}", allowed: ROLES, special: { submitter: 404 }, call: get((t) => `/api/runs/${t.adminRun}`) },
  { name: "GET /api/runs/{id}/checkpoints", allowed: ROLES, call: get((t) => `/api/runs/${t.own}/checkpoints?take=3`) },
  { name: "GET /api/runs/{id}/diff", allowed: ROLES, call: get((t) => `/api/runs/${t.own}/diff?a=0&b=1`) },
  { name: "POST /api/runs/{id}/resume", allowed: ["admin", "reviewer", "operator"], call: post((t) => `/api/runs/${t.paused}/resume`) },
  { name: "POST /api/runs/{id}/cancel", allowed: ["admin", "operator"], call: post((t) => `/api/runs/${t.cancel}/cancel`) },
  { name: "POST /api/runs/{id}/retry", allowed: ["admin", "operator"], call: post((t) => `/api/runs/${t.done}/retry`) },
  {
    name: "POST /api/runs/{id}/fork",
    allowed: ["admin", "operator"],
    call: post(
      (t) => `/api/runs/${t.own}/fork`,
      () => ({ seq: 0 }),
    ),
  },
  { name: "GET /api/approvals", allowed: ["admin", "reviewer"], call: get(() => "/api/approvals") },
  { name: "GET /api/approvals?count=1", allowed: ["admin", "reviewer"], call: get(() => "/api/approvals?count=1") },
  {
    name: "POST /api/approvals/{id}/decision",
    allowed: ["admin", "reviewer"],
    call: post(
      (t) => `/api/approvals/${t.decision}/decision`,
      () => ({ decision: "reject", reason: "matrix" }),
    ),
  },
  { name: "GET /api/agents", allowed: ROLES, call: get(() => "/api/agents") },
  { name: "GET /api/events?run={own}", allowed: ROLES, call: stream((t) => `/api/events?run=${t.own}`) },
  {
    name: "GET /api/events?run={another's}",
    allowed: ROLES,
    special: { submitter: 404 },
    call: stream((t) => `/api/events?run=${t.adminRun}`),
  },
  { name: "GET /api/events?inbox=1", allowed: ["admin", "reviewer"], call: stream(() => "/api/events?inbox=1") },
  { name: "GET /api/audit", allowed: ["admin", "reviewer", "operator"], call: get(() => "/api/audit") },
  { name: "GET /api/admin/users", allowed: ["admin"], call: get(() => "/api/admin/users") },
  {
    name: "POST /api/admin/users",
    allowed: ["admin"],
    call: post(
      () => "/api/admin/users",
      (_t, a) => ({ email: `${uniq(a)}@example.com`, name: "Matrix", role: "submitter", password: "matrix-password-1" }),
    ),
  },
  {
    name: "PATCH /api/admin/users/{id}",
    allowed: ["admin"],
    call: async (c, t) => (await c.patch(`/api/admin/users/${t.user}`, { data: { role: "operator" } })).status(),
  },
  { name: "GET /api/admin/tokens", allowed: ["admin"], call: get(() => "/api/admin/tokens") },
  {
    name: "POST /api/admin/tokens",
    allowed: ["admin"],
    call: post(
      () => "/api/admin/tokens",
      (_t, a) => ({ name: uniq(a), role: "reviewer" }),
    ),
  },
  {
    name: "DELETE /api/admin/tokens/{id}",
    allowed: ["admin"],
    call: async (c, t) => (await c.delete(`/api/admin/tokens/${t.token}`)).status(),
  },
  { name: "GET /api/approvals/{id}/preview", allowed: ["admin", "reviewer"], call: get((t) => `/api/approvals/${t.pending}/preview`) },
  { name: "GET /api/approvals/{id}/comments", allowed: ROLES, call: get((t) => `/api/approvals/${t.pending}/comments`) },
  {
    name: "POST /api/approvals/{id}/comments",
    allowed: ["admin", "reviewer"],
    call: post(
      (t) => `/api/approvals/${t.pending}/comments`,
      () => ({ text: "matrix" }),
    ),
  },
  {
    name: "POST /api/approvals/{id}/reassign",
    allowed: ["admin", "reviewer"],
    // To the reviewer: an admin's hand-off leaves the reviewer still able to decide (and reassign) it.
    call: post(
      (t) => `/api/approvals/${t.pending}/reassign`,
      () => ({ email: "reviewer@example.com" }),
    ),
  },
  { name: "GET /api/views", allowed: ROLES, call: get(() => "/api/views") },
  {
    name: "POST /api/views",
    allowed: ROLES,
    call: post(
      () => "/api/views",
      (_t, a) => ({ name: uniq(a).slice(0, 60), scope: "runs", filters: { state: "paused" } }),
    ),
  },
  {
    name: "DELETE /api/views/{admin's}",
    allowed: ROLES,
    // Someone else's view is not there for them; the admin deletes their own.
    special: { reviewer: 404, operator: 404, submitter: 404 },
    call: async (c, t) => (await c.delete(`/api/views/${t.view}`)).status(),
  },
  {
    name: "action startRunAction",
    allowed: ["admin", "submitter"],
    call: action(
      "startRunAction",
      () => "/runs/new",
      () => [startBody()],
    ),
  },
  {
    name: "action forkAction",
    allowed: ["admin", "operator"],
    call: action(
      "forkAction",
      (t) => `/runs/${t.own}/timeline`,
      (t) => [t.own, 0],
    ),
  },
  {
    name: "action decideAction",
    allowed: ["admin", "reviewer"],
    call: action(
      "decideAction",
      (t) => `/runs/${t.own}`,
      (t) => [t.decision, { decision: "reject", reason: "matrix" }],
    ),
  },
  {
    name: "action resumeRunAction",
    allowed: ["admin", "reviewer", "operator"],
    call: action(
      "resumeRunAction",
      (t) => `/runs/${t.paused}`,
      (t) => [t.paused],
    ),
  },
  {
    name: "action cancelRunAction",
    allowed: ["admin", "operator"],
    call: action(
      "cancelRunAction",
      (t) => `/runs/${t.cancel}`,
      (t) => [t.cancel],
    ),
  },
  {
    name: "action retryRunAction",
    allowed: ["admin", "operator"],
    call: action(
      "retryRunAction",
      (t) => `/runs/${t.done}`,
      (t) => [t.done],
    ),
  },
  {
    name: "action createTokenAction",
    allowed: ["admin"],
    call: action(
      "createTokenAction",
      () => "/admin/tokens",
      (_t, a) => [{ name: uniq(a), role: "reviewer" }],
    ),
  },
  {
    name: "action revokeTokenAction",
    allowed: ["admin"],
    call: action(
      "revokeTokenAction",
      () => "/admin/tokens",
      (t) => [t.token],
    ),
  },
  {
    name: "action createUserAction",
    allowed: ["admin"],
    call: action(
      "createUserAction",
      () => "/admin/users",
      (_t, a) => [{ email: `${uniq(a)}@example.com`, name: "Matrix", role: "submitter", password: "matrix-password-1" }],
    ),
  },
  {
    name: "action forkPreviewAction",
    allowed: ["admin", "operator"],
    call: action(
      "forkPreviewAction",
      (t) => `/runs/${t.own}/timeline`,
      (t) => [t.own, 0],
    ),
  },
  {
    name: "action commentAction",
    allowed: ["admin", "reviewer"],
    call: action(
      "commentAction",
      (t) => `/runs/${t.own}`,
      (t) => [t.pending, { text: "matrix" }],
    ),
  },
  {
    name: "action reassignAction",
    allowed: ["admin", "reviewer"],
    call: action(
      "reassignAction",
      (t) => `/runs/${t.own}`,
      (t) => [t.pending, { email: "reviewer@example.com" }],
    ),
  },
  {
    name: "action saveNotifySettingsAction",
    allowed: ROLES,
    call: action(
      "saveNotifySettingsAction",
      () => "/settings",
      () => [{ channels: [], digestMinutes: 0, quietStart: null, quietEnd: null, timeZone: "UTC" }],
    ),
  },
  {
    name: "action setDelegationAction",
    allowed: ["admin", "reviewer"],
    call: action(
      "setDelegationAction",
      () => "/settings",
      (_t, a) => [
        {
          deputy: a === "admin" ? "reviewer@example.com" : "admin@example.com",
          startsAt: new Date(Date.now() + 86_400_000).toISOString(),
          endsAt: new Date(Date.now() + 2 * 86_400_000).toISOString(),
        },
      ],
    ),
  },
  {
    name: "action clearDelegationAction",
    allowed: ["admin", "reviewer"],
    call: action(
      "clearDelegationAction",
      () => "/settings",
      () => [],
    ),
  },
  {
    name: "action updateUserAction",
    allowed: ["admin"],
    call: action(
      "updateUserAction",
      () => "/admin/users",
      (t) => [t.user, { role: "reviewer" }],
    ),
  },
];

async function sessionContext(
  browser: Browser,
  playwright: typeof import("@playwright/test"),
  baseURL: string,
  email?: string,
  role?: string,
) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  if (role) await signInAs(page, role);
  else await signIn(page, email!, "matrix-password-1");
  await expect(page.getByTestId("whoami")).toBeVisible();
  const cookie = (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  await ctx.close();
  return withHeaders(playwright, baseURL, { cookie, origin: baseURL });
}

async function withHeaders(playwright: typeof import("@playwright/test"), baseURL: string, headers: Record<string, string>) {
  // A fresh connection a request: the cells wait for runs to settle between a caller's requests, and a
  // kept-alive socket the server closes as it idles out met a request once (ECONNRESET).
  const c = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { ...headers, connection: "close" } });
  headersOf.set(c, headers);
  return c;
}

test(`role matrix: ${CASES.length} routes and actions × ${ACTORS.length} callers`, async ({ browser, playwright, baseURL }) => {
  test.setTimeout(240_000);
  movingBefore = new Set(moving());
  const pw = playwright as unknown as typeof import("@playwright/test");
  const ctx: Record<Actor, APIRequestContext> = {} as never;
  for (const r of ROLES) ctx[r] = await sessionContext(browser, pw, baseURL!, undefined, r);
  matrixBase = baseURL!;
  ctx.anonymous = await withHeaders(pw, baseURL!, { origin: baseURL! });

  const admin = ctx.admin;
  const tokenRes = await (await admin.post("/api/admin/tokens", { data: { name: "matrix-revoked", role: "admin" } })).json();
  await admin.delete(`/api/admin/tokens/${tokenRes.id}`);
  ctx["revoked-token"] = await withHeaders(pw, baseURL!, { authorization: `Bearer ${tokenRes.token}`, origin: baseURL! });
  const disabledEmail = `matrix-disabled-${Date.now()}@example.com`;
  const du = await (
    await admin.post("/api/admin/users", { data: { email: disabledEmail, name: "Disabled", role: "admin", password: "matrix-password-1" } })
  ).json();
  ctx["disabled-user"] = await sessionContext(browser, pw, baseURL!, disabledEmail);
  expect((await ctx["disabled-user"].get("/api/runs")).status()).toBe(200);
  expect((await admin.patch(`/api/admin/users/${du.user.id}`, { data: { disabled: true } })).status()).toBe(200);

  const start = async (c: APIRequestContext) => {
    const { id } = await (await c.post("/api/runs", { data: startBody() })).json();
    await expect.poll(async () => (await (await c.get(`/api/runs/${id}`)).json()).run.state, { timeout: 15_000 }).toBe("paused");
    return id as string;
  };
  const own = await start(ctx.submitter);
  const adminRun = await start(admin);
  const cancel = await start(ctx.submitter);
  const decisionRun = await start(ctx.submitter);
  const done = await start(ctx.submitter);
  expect((await ctx.reviewer.post(`/api/approvals/${done}:2:call_deploy/decision`, { data: { decision: "approve" } })).status()).toBe(200);
  await expect.poll(async () => (await (await admin.get(`/api/runs/${done}`)).json()).run.state, { timeout: 15_000 }).toBe("completed");
  const tok = await (await admin.post("/api/admin/tokens", { data: { name: "matrix-target", role: "reviewer" } })).json();
  const target = await (
    await admin.post("/api/admin/users", {
      data: { email: `matrix-target-${Date.now()}@example.com`, name: "Target", role: "submitter", password: "matrix-password-1" },
    })
  ).json();
  const handoff = await start(ctx.submitter);
  const view = await (await admin.post("/api/views", { data: { name: "matrix admin's", scope: "runs", filters: {} } })).json();
  const targets: Targets = {
    own,
    adminRun,
    paused: own,
    cancel,
    done,
    decision: `${decisionRun}:2:call_deploy`,
    token: tok.id,
    user: target.user.id,
    pending: `${handoff}:2:call_deploy`,
    view: view.id,
  };

  const failures: string[] = [];
  let cells = 0;
  for (const c of CASES) {
    for (const a of ACTORS) {
      const role = (ROLES as readonly string[]).includes(a) ? (a as (typeof ROLES)[number]) : null;
      const allowed = role !== null && c.allowed.includes(role);
      const expected = c.special?.[a] ?? (role === null ? 401 : allowed ? "allowed" : 403);
      const before = fingerprint();
      const status = await c.call(ctx[a], targets, a);
      cells++;
      if (expected === "allowed") {
        if (status === 401 || status === 403 || status >= 500) failures.push(`${c.name} × ${a}: ${status}, expected allowed`);
        await settle(); // a fork or a cancel goes on in the background; let it finish before the next cell
        continue;
      }
      if (status !== expected) failures.push(`${c.name} × ${a}: ${status}, expected ${expected}`);
      if (fingerprint() !== before) failures.push(`${c.name} × ${a}: denied, but the database changed`);
    }
  }
  console.log(`role matrix: ${cells} cells, ${failures.length} failures`);
  expect(failures).toEqual([]);
});
