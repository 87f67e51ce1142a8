// npm test's bundle step: the folder scripts/bundle.mjs assembled, copied elsewhere and started with only
// Node, as a deployment would start it — on SQLite (one process) and on PostgreSQL (a web-only instance and
// a worker). Each is migrated, probed, driven through one approval over HTTP (a refund that waits for a
// reviewer, approved, completed), scraped, and stopped with SIGTERM; the processes' output must hold no
// warning; the bundle's CLI lists users, makes a token the server takes, backs SQLite up.
// Usage: tsx scripts/bundle-check.ts <bundle dir>   (PostgreSQL when TEST_POSTGRES_URL is set;
// BUNDLE_NODE: the node binary that runs the bundle, by default this one — scripts/bundle-node.mjs)
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AFK, EVENT } from "../lib/telemetry/conventions.ts";
import { otlpReceiver, type ReceivedSpan } from "../tests/helpers/otlp-receiver.ts";
import { fail, freePort, type Proc, sayer, started, until } from "./check-kit.ts";

const source = path.resolve(process.argv[2] ?? "dist/afk-console");
const PASSWORD = "bundle-check-2026";
const METRICS_TOKEN = "bundle-check-metrics-token";
const NODE = process.env.BUNDLE_NODE || process.execPath;
const say = sayer("bundle-check");

// Only PATH and what a deployment would set: nothing of this shell's environment leaks into the bundle.
const clean = (env: Record<string, string>): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env });

const start = (name: string, dir: string, args: string[], env: Record<string, string>): Proc =>
  started(name, NODE, args, { cwd: dir, env: clean(env) });

function runIn(dir: string, args: string[], env: Record<string, string>): string {
  return execFileSync(NODE, args, { cwd: dir, env: clean(env), encoding: "utf8", stdio: "pipe" });
}

// A session as the browser gets one: next-auth's CSRF token, then the credentials callback.
async function signIn(base: string, email: string): Promise<string> {
  const csrf = await fetch(`${base}/api/auth/csrf`);
  const jar = (csrf.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const r = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; ") },
    body: new URLSearchParams({ csrfToken, email, password: PASSWORD, json: "true" }),
  });
  const cookies = [...jar, ...(r.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0])];
  if (!cookies.some((c) => c.includes("session-token="))) fail(`sign-in as ${email} gave no session (HTTP ${r.status})`);
  return cookies.join("; ");
}

async function api<T>(base: string, cookie: string, p: string, init: RequestInit = {}): Promise<T> {
  const r = await fetch(`${base}${p}`, { ...init, headers: { cookie, "content-type": "application/json", ...init.headers } });
  if (!r.ok) fail(`${init.method ?? "GET"} ${p}: HTTP ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

// A refund of 90.00 waits for a reviewer (its notice to the customer too); the last approval resumes the
// run and it completes.
async function approvalThrough(base: string): Promise<string> {
  const sub = await signIn(base, "submitter@example.com");
  const rev = await signIn(base, "reviewer@example.com");
  const { id } = await api<{ id: string }>(base, sub, "/api/runs", {
    method: "POST",
    headers: { traceparent: `00-${CALLER.traceId}-${CALLER.spanId}-01` },
    body: JSON.stringify({ agent: "refund-desk", input: { order_id: "ORD-1001", amount_cents: 9000, reason: "Arrived broken" } }),
  });
  type View = { run: { state: string }; approvals: { id: string; status: string; argsHash: string }[] };
  const paused = await until("the run to pause", async () => {
    const v = await api<View>(base, sub, `/api/runs/${id}`);
    return v.run.state === "paused" && v.approvals.length > 0 && v;
  });
  for (const a of paused.approvals.filter((x) => x.status === "pending")) {
    await api(base, rev, `/api/approvals/${encodeURIComponent(a.id)}/decision`, {
      method: "POST",
      body: JSON.stringify({ decision: "approve", argsHash: a.argsHash }),
    });
  }
  await until("the run to complete", async () => (await api<View>(base, sub, `/api/runs/${id}`)).run.state === "completed");
  say(`run ${id}: paused with ${paused.approvals.length} approvals, approved, resumed by the last decision, completed`);
  return id;
}

// The caller's span the start request carries (W3C traceparent): the request's trace continues it.
const CALLER = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };

// The spans the instances sent (flushed by their SIGTERM): the start request is a SERVER span, "POST
// /api/runs", the child of the caller's span; the run's first segment and the request's statements are its
// children; of Next.js's spans only request spans arrive (lib/telemetry/next-spans.ts), and no span's
// parent is missing. Each decision request's span carries its afk.approval.decided event (recorded in the
// route handler, where Next's own span is active).
const OTLP_SERVER = 2;
const tree = (spans: ReceivedSpan[], traceId: string) =>
  spans
    .filter((x) => x.traceId === traceId)
    .map((x) => `${x.spanId} ← ${x.parentSpanId ?? "-"} ${x.name}`)
    .join("\n");
function traced(spans: ReceivedSpan[], runId: string) {
  const request = spans.find((x) => x.traceId === CALLER.traceId && x.parentSpanId === CALLER.spanId);
  if (request?.name !== "POST /api/runs" || request.kind !== OTLP_SERVER)
    fail(`the start request's span: ${JSON.stringify(request && [request.name, request.kind])}, not a SERVER span "POST /api/runs"`);
  const children = spans.filter((x) => x.parentSpanId === request.spanId);
  const segment = children.find((x) => x.attributes[AFK.runId] === runId && x.name.startsWith("invoke_agent "));
  if (!segment) fail(`no invoke_agent span of run ${runId} under the start request's span; its trace:\n${tree(spans, request.traceId)}`);
  if (!children.some((x) => x.attributes["db.system.name"])) fail("no database span under the start request's span");
  const next = spans.filter((x) => x.attributes["next.span_type"] && x.attributes["next.span_type"] !== "BaseServer.handleRequest");
  if (next.length) fail(`Next.js's inner spans arrived: ${[...new Set(next.map((x) => x.attributes["next.span_type"]))].join(", ")}`);
  const decisions = spans.filter((x) => x.kind === OTLP_SERVER && x.name.endsWith("/decision"));
  if (!decisions.length)
    fail(`no decision request's span: ${[...new Set(spans.filter((x) => x.kind === OTLP_SERVER).map((x) => x.name))]}`);
  for (const d of decisions)
    if (!d.events.some((e) => e.name === EVENT.approvalDecided)) fail(`the span of ${d.name} has no ${EVENT.approvalDecided} event`);
  const ids = new Set([...spans.map((x) => x.spanId), CALLER.spanId]);
  const orphans = spans.filter((x) => x.parentSpanId && !ids.has(x.parentSpanId));
  if (orphans.length) fail(`spans whose parent never arrived: ${orphans.map((x) => x.name).join(", ")}`);
  const requests = spans.filter((x) => x.kind === OTLP_SERVER).length;
  return `${spans.length} spans (${requests} requests), one trace from the start request through the run's segment`;
}

// The bundle's CLI (scripts/afk.mjs, compiled without Next) from the copy, as an operator runs it: users,
// a token (used against the server below), and on SQLite an online backup.
let cliToken = "";
function cliFromBundle(dir: string, env: Record<string, string>, base: string, provider: string): string {
  const afk = (...args: string[]) => runIn(dir, ["scripts/afk.mjs", ...args], env);
  if (!afk("help").includes("users create")) fail("afk help does not list users create");
  const users = afk("users", "list", "--as", "admin@example.com");
  if (!users.includes("reviewer@example.com\treviewer")) fail(`afk users list:\n${users}`);
  cliToken = (
    JSON.parse(afk("tokens", "create", "--name", "bundle", "--role", "submitter", "--json", "--as", "admin@example.com")) as {
      token: string;
    }
  ).token;
  if (provider !== "sqlite") return `users listed, a token made (${base})`;
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "afk-bundle-backup-")), "backup.db");
  const backup = afk("backup", file);
  if (!/integrity checked/.test(backup)) fail(`afk backup: ${backup}`);
  return "users listed, a token made, backed up";
}

// Retried: the CLI took seconds, and the first request may meet a kept-alive connection the server closed.
async function tokenWorks(base: string, token: string) {
  const status = await until(
    "GET /api/runs with the CLI's token",
    async () => (await fetch(`${base}/api/runs`, { headers: { authorization: `Bearer ${token}` } })).status,
  );
  if (status !== 200) fail(`GET /api/runs with the CLI's token: HTTP ${status}`);
}

async function probe(url: string, status: number) {
  await until(`${url} to answer ${status}`, async () => (await fetch(url)).status === status);
}

async function scrape(url: string, names: string[]) {
  const r = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  if (!r.ok) fail(`${url}: HTTP ${r.status}`);
  const text = await r.text();
  const missing = names.filter((n) => !new RegExp(`^${n}(\\{| )`, "m").test(text));
  if (missing.length) fail(`${url} lacks ${missing.join(", ")}`);
}

async function stop(p: Proc) {
  p.child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  // The timer is cleared once the process exits: left running it kept this script alive 30 s past its end.
  const code = await Promise.race([p.exit, new Promise<"hung">((r) => (timer = setTimeout(() => r("hung"), 30_000)))]);
  clearTimeout(timer);
  if (code === "hung") {
    p.child.kill("SIGKILL");
    fail(`${p.name} did not exit within 30 s of SIGTERM`);
  }
  if (code !== 0) fail(`${p.name} exited ${code} after SIGTERM:\n${p.out.slice(-20).join("\n")}`);
}

// What a deployment's log must not show: warnings (Next's, Prisma's, ours) and errors.
function quiet(p: Proc) {
  const bad = p.out.filter((l) => /⚠|\bwarn(ing)?\b|"level":"(warn|error)"|\berror\b/i.test(l));
  if (bad.length) fail(`${p.name} printed:\n${bad.join("\n")}`);
}

async function check(provider: "sqlite" | "postgresql", databaseUrl: string) {
  const receiver = await otlpReceiver();
  const dir = mkdtempSync(path.join(os.tmpdir(), `afk-bundle-${provider}-`));
  cpSync(source, dir, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: databaseUrl,
    NEXTAUTH_SECRET: "bundle-check-secret-of-at-least-32-characters",
    NEXTAUTH_URL: base,
    AFK_DEMO_PASSWORD: PASSWORD,
    AFK_SEED_DEMO_RUNS: "0",
    AFK_METRICS_TOKEN: METRICS_TOKEN,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    // Next's own SIGTERM handler would exit before the console's drain (143): the image sets this too.
    NEXT_MANUAL_SIG_HANDLE: "true",
    // Traces to a receiver here; a long batch delay, so that what arrives was flushed at SIGTERM.
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: "600000",
  };
  const migrated = runIn(dir, ["scripts/db.mjs", "setup"], env);
  if (/warn|datasource properties/i.test(migrated)) fail(`migrations printed a warning:\n${migrated}`);
  say(`${provider}: migrated and seeded from a copy at ${dir}`);
  const procs: Proc[] = [];
  try {
    const web = start("web", dir, ["server.js"], {
      ...env,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      ...(provider === "postgresql" ? { AFK_WORKERS: "0" } : {}),
    });
    procs.push(web);
    await probe(`${base}/api/health/live`, 200);
    await probe(`${base}/api/health/ready`, 200);
    let worker: Proc | undefined;
    let opsPort = 0;
    if (provider === "postgresql") {
      opsPort = await freePort();
      worker = start("worker", dir, ["worker.mjs"], { ...env, AFK_WORKERS: "2", AFK_OPS_PORT: String(opsPort) });
      procs.push(worker);
      await probe(`http://127.0.0.1:${opsPort}/readyz`, 200);
    }
    say(`${provider}: ${worker ? "web-only instance and worker" : "web instance"} live and ready`);
    const runId = await approvalThrough(base);
    say(`${provider}: CLI: ${cliFromBundle(dir, env, base, provider)}`);
    await tokenWorks(base, cliToken);
    await scrape(`${base}/api/metrics`, ["afk_approvals_pending", "afk_build_info"]);
    if (worker) await scrape(`http://127.0.0.1:${opsPort}/metrics`, ["afk_runs_finished_total"]);
    say(`${provider}: metrics scraped`);
    for (const p of [...procs].reverse()) await stop(p);
    for (const p of procs) quiet(p);
    say(`${provider}: stopped by SIGTERM with exit 0 and no warning`);
    say(`${provider}: traces: ${traced(receiver.spans, runId)}`);
  } catch (e) {
    for (const p of procs) {
      p.child.kill("SIGKILL");
      console.error(`--- ${p.name} output ---\n${p.out.slice(-40).join("\n")}`);
    }
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await receiver.close();
  }
}

say(`on Node ${execFileSync(NODE, ["--version"], { encoding: "utf8" }).trim()}`);
await check("sqlite", `file:${path.join(mkdtempSync(path.join(os.tmpdir(), "afk-bundle-db-")), "afk.db")}`);
const pg = process.env.TEST_POSTGRES_URL;
if (pg) {
  const name = `afk_bundle_${process.pid}`;
  execFileSync("psql", ["-q", "-d", pg, "-c", `CREATE DATABASE ${name}`]);
  try {
    const u = new URL(pg);
    u.pathname = `/${name}`;
    await check("postgresql", u.toString());
  } finally {
    execFileSync("psql", ["-q", "-d", pg, "-c", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]);
  }
} else {
  say("postgresql: skipped (no TEST_POSTGRES_URL)");
}
say("ok");
