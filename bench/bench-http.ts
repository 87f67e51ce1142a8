// npm run bench:http — the console's pages and APIs measured over real HTTP against the production
// server (`next build` first), on a database of BENCH_RUNS runs (default 1,000,000; 800 of them paused on
// an approval) plus one run with BENCH_CHECKPOINTS checkpoints (default 10,000). SQLite always;
// PostgreSQL too with BENCH_POSTGRES_URL or TEST_POSTGRES_URL. For each request: 1 client, then 32
// concurrent clients (keep-alive, each sending the next request when its answer is read), BENCH_SECONDS
// each (default 4); prints req/s, p50, p95 and p99 next to the targets (p95 ≤ 150 ms at 32 clients; inbox
// and runs-list APIs ≥ 1,000 req/s). The load generator shares the machine's cores with the server.
// Pages (the HTML a reviewer's browser loads: inbox, runs list, run pages, timelines, audit) are read
// with a reviewer's session cookie, on real runs (paused on approvals, on a question, completed) beside
// the seeded ones. BENCH_PORT: the server's port (default 3200).
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { scratchDatabase } from "../tests/helpers/scratch.ts";
import { encode } from "next-auth/jwt";
import type { Actor } from "../lib/auth/actor.ts";
import { type AppContext, createContext } from "../lib/context.ts";
import { startRun } from "../lib/services/start.ts";
import { otlpReceiver } from "../tests/helpers/otlp-receiver.ts";
import { seed } from "./bench-console.ts";

process.env.LOG_LEVEL ??= "warn";
// --traces: tracing's cost per request instead (benchTraces below), on a smaller database.
const TRACES = process.argv.includes("--traces");
const RUNS = Number(process.env.BENCH_RUNS ?? (TRACES ? 10_000 : 1_000_000));
const CHECKPOINTS = Number(process.env.BENCH_CHECKPOINTS ?? (TRACES ? 1_000 : 10_000));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const RATE = Number(process.env.BENCH_TRACE_RATE ?? 100);
const PORT = Number(process.env.BENCH_PORT ?? 3200);
const SECRET = "bench-secret-0123456789abcdef";
// The server under load (the --traces mode runs two, on PORT and PORT + 1, and switches between them).
let base = `http://127.0.0.1:${PORT}`;

type Result = {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  status: number;
  bytes: number;
  cpuMs: number;
  n: number;
};

// The server's own CPU time (user + system, from /proc) per request: unlike req/s at 32 clients it does
// not depend on the load generator sharing the cores, and 1000 / cpuMs is what one core can serve.
const TICK_MS = 1000 / 100; // USER_HZ
function cpuTicks(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
  } catch {
    return Number.NaN;
  }
}
let serverPid: number | undefined;

// conditional: each client polls as a browser does, sending back the ETag of its last answer.
async function load(path: string, clients: number, headers: Record<string, string>, conditional = false): Promise<Result> {
  const ms: number[] = [];
  let errors = 0;
  let status = 0;
  let bytes = 0;
  const until = performance.now() + SECONDS * 1000;
  const one = async () => {
    let etag: string | null = null;
    while (performance.now() < until) {
      const t = performance.now();
      const res: Response = await fetch(base + path, {
        headers: conditional && etag ? { ...headers, "if-none-match": etag } : headers,
        // A page that redirects (to /login: the session was refused) is an error, not the login page's speed.
        redirect: "manual",
      });
      bytes = (await res.arrayBuffer()).byteLength;
      etag = res.headers.get("etag") ?? etag;
      ms.push(performance.now() - t);
      status = res.status;
      if (res.status >= 300 && res.status !== 304) errors++;
    }
  };
  const t0 = performance.now();
  const c0 = cpuTicks(serverPid);
  await Promise.all(Array.from({ length: clients }, one));
  const cpuMs = ((cpuTicks(serverPid) - c0) * TICK_MS) / ms.length;
  const secs = (performance.now() - t0) / 1000;
  ms.sort((a, b) => a - b);
  return {
    rps: ms.length / secs,
    p50: ms[Math.floor(ms.length * 0.5)],
    p95: ms[Math.ceil(ms.length * 0.95) - 1],
    p99: ms[Math.ceil(ms.length * 0.99) - 1],
    errors,
    status,
    bytes,
    cpuMs,
    n: ms.length,
  };
}

// Open-loop load for the --traces mode: requests sent at a fixed rate whatever the answers' speed (at most
// 64 in flight), the server's CPU read once all have been answered. A closed loop lets the request rate
// follow the server's speed and the shared machine's load, and a Node server spends less CPU a request the
// more requests each turn of its event loop handles: two servers loaded in turns by 8 eager clients then
// differ by whatever else the machine did during each turn. At one rate both handle the same traffic.
async function paced(path: string, rate: number, headers: Record<string, string>): Promise<{ cpuMs: number; n: number; late: number }> {
  const total = Math.round(rate * SECONDS);
  const inFlight = new Set<Promise<void>>();
  let late = 0;
  const c0 = cpuTicks(serverPid);
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (inFlight.size >= 64) {
      late++;
      await Promise.race(inFlight);
    }
    const p: Promise<void> = fetch(base + path, { headers, redirect: "manual" })
      .then((res) => res.arrayBuffer())
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  return { cpuMs: ((cpuTicks(serverPid) - c0) * TICK_MS) / total, n: total, late };
}

// cwd: the checkout whose build it serves (BENCH_AGAINST's), this one by default.
function startServer(url: string, extraEnv: Record<string, string> = {}, port = PORT, cwd = process.cwd()): ChildProcess {
  // BENCH_PROFILE=<dir>: the server writes a CPU profile there when it exits (open it in Chrome's DevTools).
  const profile = process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  return spawn(process.execPath, [...profile, "node_modules/next/dist/bin/next", "start", "-p", String(port)], {
    cwd,
    env: {
      ...process.env,
      DATABASE_URL: url,
      NODE_ENV: "production",
      NEXTAUTH_SECRET: SECRET,
      NEXTAUTH_URL: `http://127.0.0.1:${port}`,
      AFK_DATA_DIR: "data/bench",
      AFK_SWEEP_INTERVAL_S: "0",
      AFK_WORKERS: "0",
      LOG_LEVEL: "error",
      ...extraEnv,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function waitUp() {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("server did not start");
}

// A scratch database with RUNS runs and an admin's API token; the client is disconnected (the server opens its own).
async function seeded(s: Awaited<ReturnType<typeof scratchDatabase>>, provider: string) {
  const ex = createContext(s.db);
  const t0 = Date.now();
  const seededRuns = await seed(s.db, ex, RUNS, CHECKPOINTS, Math.min(Number(process.env.BENCH_PAUSED ?? 800), RUNS));
  await ex.worker.idle();
  const admin = await s.db.user.create({ data: { email: "bench-admin@example.com", name: "Admin", role: "admin", passwordHash: "x" } });
  const token = `afk_${randomBytes(24).toString("base64url")}`;
  await s.db.apiToken.create({
    data: {
      name: "bench",
      role: "admin",
      tokenHash: createHash("sha256").update(token).digest("hex"),
      prefix: token.slice(0, 8),
      userId: admin.id,
      createdById: admin.id,
    },
  });
  const reviewer = await s.db.user.create({
    data: { email: "bench-reviewer@example.com", name: "Reviewer", role: "reviewer", passwordHash: "x", groups: '["finance"]' },
  });
  const real = await realRuns(ex);
  const paused = await s.db.run.findFirst({ where: { state: "paused" }, select: { id: true } });
  await s.db.$disconnect();
  console.log(`${provider}: seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  // A browser's session: next-auth's cookie, as the sign-in form leaves it (pages take no bearer token).
  const session = await encode({
    token: { sub: reviewer.id, email: reviewer.email, name: reviewer.name, role: reviewer.role, sessionVersion: 0 },
    secret: SECRET,
  });
  return { ...seededRuns, token, paused: paused?.id, real, cookie: `next-auth.session-token=${session}` };
}

const benchSubmitter: Actor = { id: "bench-submitter-7", email: "sub7@example.com", name: "S", role: "submitter" };

/** Runs made by the runner with the demo model, as a reviewer meets them: paused on two approvals, paused
 * on a question, completed. */
async function realRuns(ex: AppContext): Promise<{ paused: string; question: string; completed: string }> {
  const start = async (agent: string, input: Record<string, unknown>) =>
    (await startRun(ex, benchSubmitter, { body: { agent, input } })).id;
  const runs = {
    paused: await start("refund-desk", { order_id: "ORD-1001", amount_cents: 9000, reason: "damaged in transit" }),
    question: await start("account-setup", { company: "Bench Ltd" }),
    completed: await start("order-status", { order_id: "ORD-1001" }),
  };
  await ex.worker.idle();
  return runs;
}

async function bench(provider: "sqlite" | "postgresql", pgUrl?: string) {
  const s = await scratchDatabase(provider, pgUrl, "afk_bench");
  let server: ChildProcess | null = null;
  let other: ChildProcess | null = null;
  try {
    const { longRun, midCursor, deepRunCursor, token, paused, real, cookie } = await seeded(s, provider);
    server = startServer(s.url);
    aim(PORT, server);
    await waitUp();
    if (AGAINST) {
      // Its own working directory: a SQLite URL relative to this one is made absolute.
      other = startServer(s.url.replace(/^file:(?!\/)/, `file:${process.cwd()}/`), {}, PORT + 1, AGAINST);
      aim(PORT + 1, other);
      await waitUp();
      aim(PORT, server);
    }
    const auth = { authorization: `Bearer ${token}` };
    type Case = [string, string, { rps?: number; conditional?: boolean; auth?: false; page?: true }];
    const api: Case[] = [
      ["health (no auth: the server's floor)", "/api/health", { auth: false }],
      ["inbox API, full answers", "/api/approvals", { rps: 1000 }],
      ["inbox API, polled with If-None-Match", "/api/approvals", { rps: 1000, conditional: true }],
      ["pending badge API", "/api/approvals?count=1", {}],
      ["runs list API, first page", "/api/runs", { rps: 1000 }],
      [`runs list API, page at run ${Math.floor(RUNS / 2).toLocaleString("en")}`, `/api/runs?cursor=${deepRunCursor}`, {}],
      ["runs list API, state=failed + agent", "/api/runs?state=failed&agent=deploy-bot", {}],
      ["run view API (paused run)", `/api/runs/${real.paused}`, {}],
      ["run view API (seeded paused run)", `/api/runs/${paused}`, {}],
      [`run view API (${CHECKPOINTS.toLocaleString("en")} checkpoints)`, `/api/runs/${longRun}`, {}],
      ["timeline API, first page", `/api/runs/${longRun}/checkpoints`, {}],
      ["timeline API, middle page", `/api/runs/${longRun}/checkpoints?cursor=${encodeURIComponent(midCursor)}`, {}],
      ["diff API", `/api/runs/${longRun}/diff?a=0&b=${CHECKPOINTS - 10}`, {}],
    ];
    // Every page a reviewer opens, as HTML (the server's render of the page and its data for hydration).
    const pages: Case[] = [
      ["page: sign-in /login (no session: the floor)", "/login", { page: true, auth: false }],
      ["page: inbox /approvals", "/approvals", { page: true }],
      // What the inbox page's browser asks for once hydrated (the whole list; no ETag yet on a first open).
      ["page: inbox, its list after hydration (API)", "/api/approvals", { page: true }],
      // The preview pane beside the list: the current request whole, read once the list is there.
      [
        "page: inbox, its preview pane (API)",
        `/api/approvals/${encodeURIComponent(`${real.paused}:2:call_refund`)}/preview`,
        { page: true },
      ],
      ["page: runs list /runs", "/runs", { page: true }],
      ["page: runs list, state=paused", "/runs?state=paused", { page: true }],
      ["page: run, paused on approvals", `/runs/${real.paused}`, { page: true }],
      ["page: run, paused on a question", `/runs/${real.question}`, { page: true }],
      ["page: run, completed", `/runs/${real.completed}`, { page: true }],
      [`page: run, ${CHECKPOINTS.toLocaleString("en")} checkpoints`, `/runs/${longRun}`, { page: true }],
      ["page: timeline, paused run", `/runs/${real.paused}/timeline`, { page: true }],
      ["page: timeline, completed run, diff", `/runs/${real.completed}/timeline?a=0&b=3`, { page: true }],
      [`page: timeline, ${CHECKPOINTS.toLocaleString("en")} checkpoints`, `/runs/${longRun}/timeline`, { page: true }],
      ["page: audit", "/audit", { page: true }],
    ];
    console.log(`\n${provider}, ${RUNS.toLocaleString("en")} runs, over HTTP (${SECONDS} s per cell)`);
    console.log(
      `${"request".padEnd(42)}  1 client: req/s   p50    p95  | 32 clients: req/s    p50    p95    p99  |  answer | server CPU | targets`,
    );
    // BENCH_ONLY=<text>: only the requests whose name contains it ("page:" for the pages alone; several
    // separated by "|").
    const only = process.env.BENCH_ONLY;
    for (const [name, path, t] of [...api, ...pages].filter(([n]) => !only || only.split("|").some((o) => n.includes(o)))) {
      const h: Record<string, string> = t.auth === false ? {} : t.page ? { cookie } : auth;
      // BENCH_DUMP=<dir>: each answer's body written there once (to read what a page sends).
      if (process.env.BENCH_DUMP) {
        const body = await (await fetch(`${base}${path}`, { headers: h })).text();
        mkdirSync(process.env.BENCH_DUMP, { recursive: true });
        writeFileSync(`${process.env.BENCH_DUMP}/${name.replace(/[^a-z0-9]+/gi, "-")}.html`, body);
      }
      if (other) {
        await turns(name, path, h, [server, other]);
        continue;
      }
      await load(path, 4, h, t.conditional); // warm
      const one = await load(path, 1, h, t.conditional);
      const many = await load(path, 32, h, t.conditional);
      const met = [
        many.p95 <= 150 ? "p95 met" : "p95 MISSED",
        t.rps ? (many.rps >= t.rps ? `≥ ${t.rps}/s met` : `≥ ${t.rps}/s MISSED`) : "",
      ]
        .filter(Boolean)
        .join(", ");
      const errs = one.errors + many.errors ? ` (${one.errors + many.errors} errors, last status ${many.status})` : "";
      const f = (n: number, w: number) => n.toFixed(n < 1000 ? 1 : 0).padStart(w);
      console.log(
        `${name.padEnd(42)}  ${one.rps.toFixed(0).padStart(14)} ${f(one.p50, 6)} ${f(one.p95, 6)}  | ${many.rps.toFixed(0).padStart(16)} ${f(many.p50, 6)} ${f(many.p95, 6)} ${f(many.p99, 6)}  | ${`${(one.bytes / 1024).toFixed(1)} KB`.padStart(8)}| ${`${many.cpuMs.toFixed(2)} ms`.padStart(10)} | ${met}${errs}`,
      );
    }
  } finally {
    server?.kill("SIGTERM");
    other?.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    await s.drop().catch(() => {});
  }
}

// Points the load at one of the servers: its URL, and the process whose CPU is read.
function aim(port: number, server: ChildProcess) {
  base = `http://127.0.0.1:${port}`;
  serverPid = server.pid;
}

// The two servers (0, 1) loaded in turns, the one going first alternating from turn to turn: a change of the
// shared machine's load falls on both.
async function inTurns(turns: number, each: (i: 0 | 1) => Promise<void>) {
  for (let turn = 0; turn < turns; turn++) for (const i of turn % 2 ? ([1, 0] as const) : ([0, 1] as const)) await each(i);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// BENCH_AGAINST=<dir>: a second built checkout (a worktree at the commit to compare with) served from its
// directory on BENCH_PORT + 1, on the same database. Each request is then loaded at 32 clients in turns,
// BENCH_TURNS a side (default 3), the side going first alternating, and each side's medians printed: a
// change of the shared machine's load falls on both, which two bench runs one after the other do not give.
const AGAINST = process.env.BENCH_AGAINST;
async function turns(name: string, path: string, h: Record<string, string>, servers: ChildProcess[]) {
  const use = (i: number) => aim(PORT + i, servers[i]);
  const got: Result[][] = [[], []];
  for (const i of [0, 1]) {
    use(i);
    await load(path, 4, h); // warm
  }
  await inTurns(Number(process.env.BENCH_TURNS ?? 3), async (i) => {
    use(i);
    got[i].push(await load(path, 32, h));
  });
  use(0);
  const of = (rs: Result[], k: "p50" | "p95" | "p99" | "cpuMs" | "rps") => median(rs.map((r) => r[k]));
  const side = (rs: Result[]) =>
    `${of(rs, "rps").toFixed(0)}/s ${["p50", "p95", "p99"].map((k) => of(rs, k as "p50").toFixed(0)).join(" / ")} ms, ${of(rs, "cpuMs").toFixed(2)} ms CPU, ${(rs[0].bytes / 1024).toFixed(1)} KB${rs.some((r) => r.errors) ? ` (errors, last status ${rs[rs.length - 1].status})` : ""}`;
  console.log(`${name.padEnd(42)}  this: ${side(got[0])}  |  against: ${side(got[1])}`);
}

// --traces: the production server's CPU per request with tracing off and with an OTLP exporter sending
// every span (the request spans, the database spans) to a receiver in this process. Both servers
// run at once on one seeded database and take the load in turns, one cell of BENCH_SECONDS (default 4)
// at a time, BENCH_TRACE_ROUNDS (default 5) turns a request, at BENCH_TRACE_RATE requests a second (default
// 100, paced): a change of the shared machine's load falls on both. CPU time, not req/s: the load generator
// shares the cores.
async function benchTraces(provider: "sqlite" | "postgresql", url?: string) {
  const s = await scratchDatabase(provider, url, "afk_bench");
  const receiver = await otlpReceiver();
  const servers: ChildProcess[] = [];
  try {
    const { token, paused } = await seeded(s, provider);
    const auth = { authorization: `Bearer ${token}` };
    const cases: [string, string, Record<string, string>][] = [
      ["health (no auth)", "/api/health", {}],
      ["inbox API", "/api/approvals", auth],
      ["runs list API, first page", "/api/runs", auth],
      ["run view API (paused run)", `/api/runs/${paused}`, auth],
    ];
    const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    // BENCH_AGAINST=<dir>: both sides traced, the first served from that checkout (the code before a
    // change), so "added" is what the change adds (negative: saves) in the same turns; BENCH_TRACE_SWAP=1
    // serves this checkout first instead (the two places read apart by up to the A/A run's difference).
    const swap = Boolean(process.env.BENCH_TRACE_SWAP);
    const sides: { port: number; env: Record<string, string>; cwd?: string }[] = AGAINST
      ? [
          { port: PORT, env: traced, cwd: swap ? undefined : AGAINST },
          { port: PORT + 1, env: traced, cwd: swap ? AGAINST : undefined },
        ]
      : [
          { port: PORT, env: {} },
          // BENCH_TRACE_AA=1: neither side traced, to see how far two equal servers differ here.
          { port: PORT + 1, env: process.env.BENCH_TRACE_AA ? {} : traced },
        ];
    // A side served from another directory gets the SQLite URL made absolute.
    for (const side of sides)
      servers.push(startServer(side.cwd ? s.url.replace(/^file:(?!\/)/, `file:${process.cwd()}/`) : s.url, side.env, side.port, side.cwd));
    const use = (i: number) => aim(sides[i].port, servers[i]);
    for (const i of [0, 1]) {
      use(i);
      await waitUp();
    }
    const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
    console.log(
      AGAINST
        ? `\n${provider}: server CPU ms per request, both with an OTLP exporter, ${swap ? `this checkout and ${AGAINST}` : `${AGAINST} and this checkout`} (median of the turns, range)`
        : `\n${provider}: server CPU ms per request, tracing off and with an OTLP exporter (median of the turns, range; target ≤ 0.3 ms added)`,
    );
    const [h0, h1] = !AGAINST ? ["no exporter", "OTLP exporter"] : swap ? ["this", "against"] : ["against", "this"];
    console.log(`${"request".padEnd(30)} ${h0.padStart(22)} ${h1.padStart(22)} ${"added".padStart(9)}`);
    let requestsOn = 0;
    const spansBefore = receiver.spans.length;
    for (const [name, path, h] of cases) {
      const cpu: number[][] = [[], []];
      const late = [0, 0];
      for (const i of [0, 1]) {
        use(i);
        requestsOn += (AGAINST ? 1 : i) * (await load(path, 4, h)).n; // warm
      }
      await inTurns(Number(process.env.BENCH_TRACE_ROUNDS ?? 5), async (i) => {
        use(i);
        const r = await paced(path, RATE, h);
        cpu[i].push(r.cpuMs);
        late[i] += r.late;
        requestsOn += (AGAINST ? 1 : i) * r.n;
      });
      const [a, b] = [median(cpu[0]), median(cpu[1])];
      console.log(
        `${name.padEnd(30)} ${`${a.toFixed(3)} (${range(cpu[0])})`.padStart(22)} ${`${b.toFixed(3)} (${range(cpu[1])})`.padStart(22)} ${`${(b - a).toFixed(3)} ms`.padStart(9)}${late[0] + late[1] ? `  (behind the rate: ${late[0]} / ${late[1]} sends)` : ""}`,
      );
    }
    // SIGTERM: each server flushes its spans on the way out, so the count below has them all.
    const exited = servers.map((p) => new Promise((r) => p.once("exit", r)));
    for (const p of servers) p.kill("SIGTERM");
    await Promise.all(exited);
    console.log(`spans received per traced request: ${((receiver.spans.length - spansBefore) / requestsOn).toFixed(1)}`);
  } finally {
    for (const p of servers) if (p.exitCode === null) p.kill("SIGKILL");
    await receiver.close();
    await s.drop().catch(() => {});
  }
}

const pgUrl = process.env.BENCH_SQLITE_ONLY ? undefined : (process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL);
const run = TRACES ? benchTraces : bench;
await run("sqlite");
if (pgUrl) await run("postgresql", pgUrl);
else console.log("\n(PostgreSQL skipped: set BENCH_POSTGRES_URL or TEST_POSTGRES_URL)");
process.exit(0);
