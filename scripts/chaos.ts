// npm run test:chaos — two `next start` instances and one `npm run worker` on one PostgreSQL database.
// 200 refund-desk runs (two approvals each) are started and decided through the REST API while, every few
// seconds, a random process is either SIGKILLed and restarted, or stalled with SIGSTOP for longer than its
// lease and then woken with SIGCONT (a long GC pause, a frozen VM). Then: every run completed, each ledger
// and outbox row exists exactly once, no run was executed by two workers at once, no record of a run was
// written after another worker took it over (checked from its checkpoint records), and the latest pointer
// of every run is its one terminal record.
// Starts go through POST /api/runs with an Idempotency-Key, retried until answered: exactly RUNS runs
// must exist, and every decision must have exactly one audit entry.
// `--sqlite`: the embedded topology instead — one `next start` on a SQLite file (synchronous=FULL, a slow
// disk), SIGKILLed at random while runs are started and decided.
// Needs TEST_POSTGRES_URL (or CHAOS_POSTGRES_URL; not with --sqlite) and a production build (`next build`).
// Exit code 1 on failure.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { scratchDatabase } from "../tests/helpers/scratch.ts";
import { createToken } from "../lib/services/tokens.ts";
import { isSystemDecision, listApprovals, listCheckpoints, loadLatestCheckpoint } from "../lib/runner/index.ts";
import { PrismaStore } from "../lib/db/store.ts";

const SQLITE = process.argv.includes("--sqlite");
const RUNS = Number(process.env.CHAOS_RUNS ?? 200);
const KILL_EVERY_MS = Number(process.env.CHAOS_KILL_EVERY_MS ?? 2000);
const DEADLINE_MS = Number(process.env.CHAOS_DEADLINE_S ?? 480) * 1000;
const base = process.env.CHAOS_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
if (!base && !SQLITE) {
  console.log("chaos: no PostgreSQL (TEST_POSTGRES_URL); skipped");
  process.exit(0);
}

const s = SQLITE ? await scratchDatabase("sqlite") : await scratchDatabase("postgresql", base, "afk_chaos");
mkdirSync("data/chaos", { recursive: true });
const admin = { id: "chaos-admin", email: "chaos@example.com", name: "Chaos", role: "admin" as const };
const subToken = (await createToken({ db: s.db }, admin, { body: { name: "chaos-submitter", role: "submitter" } })).token;
const revToken = (await createToken({ db: s.db }, admin, { body: { name: "chaos-reviewer", role: "reviewer" } })).token;

const env = {
  ...process.env,
  DATABASE_URL: s.url,
  AFK_DATA_DIR: "data/chaos",
  NEXTAUTH_SECRET: "chaos-secret-0123456789abcdef",
  AFK_SWEEP_INTERVAL_S: "2",
  AFK_LEASE_S: "4",
  AFK_WORKERS: "4",
  LOG_LEVEL: "warn",
  NODE_ENV: "production",
  AFK_DEMO_LATENCY_MS: process.env.AFK_DEMO_LATENCY_MS ?? "500",
  ...(SQLITE ? { AFK_SQLITE_SYNCHRONOUS: "FULL" } : {}),
} as NodeJS.ProcessEnv;
type Proc = { name: string; cmd: string[]; port?: number; child?: ChildProcess; up: boolean; stopped?: boolean };
const LEASE_MS = Number(env.AFK_LEASE_S) * 1000;
let reexecutions = 0;
const procs: Proc[] = SQLITE
  ? [{ name: "app", cmd: ["node_modules/.bin/next", "start", "-p", "3211"], port: 3211, up: false }]
  : [
      { name: "app-a", cmd: ["node_modules/.bin/next", "start", "-p", "3211"], port: 3211, up: false },
      { name: "app-b", cmd: ["node_modules/.bin/next", "start", "-p", "3212"], port: 3212, up: false },
      { name: "worker", cmd: [process.execPath, "--conditions=react-server", "--import", "tsx", "scripts/worker.ts"], up: false }, // one process, so SIGKILL kills the worker itself
    ];
const label = SQLITE ? "chaos (SQLite)" : "chaos";
const errors: string[] = [];

function launch(p: Proc) {
  const child: ChildProcess = spawn(p.cmd[0], p.cmd.slice(1), {
    env: { ...env, NEXTAUTH_URL: `http://localhost:${p.port ?? 3211}` },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr?.on("data", (d: Buffer) => {
    const line = d.toString();
    if (process.env.CHAOS_LOG) process.stderr.write(`[${p.name}] ${line}`);
    reexecutions += (line.match(/tool re-executed/g) ?? []).length;
    if (/"level":"error"/.test(line) && !/lease lost|lease not renewable|ECONNREFUSED|terminat|Connection terminated|57P01/.test(line))
      errors.push(`${p.name}: ${line.slice(0, 300)}`);
  });
  p.child = child;
  p.up = true;
  child.on("exit", () => (p.up = false));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const apps = () => procs.filter((p) => p.port && p.up && !p.stopped);

async function call(
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> } | null> {
  const live = apps();
  if (!live.length) return null;
  const p = live[Math.floor(Math.random() * live.length)];
  try {
    const res = await fetch(`http://127.0.0.1:${p.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, json: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  } catch {
    return null; // instance killed mid-request; the caller tries again
  }
}

async function healthy(p: Proc) {
  for (let i = 0; ; i++) {
    const r = await fetch(`http://127.0.0.1:${p.port}/api/health`).catch(() => null);
    if (r?.ok) return;
    if (i > 600) throw new Error(`${p.name} did not start`);
    await sleep(100);
  }
}
for (const p of procs) launch(p);
for (const p of procs.filter((x) => x.port)) await healthy(p);
const t0 = Date.now();
let kills = 0;
let stalls = 0;
let decisions = 0;
let resumes = 0;
let done = false;

// Starts RUNS runs, each retried with its Idempotency-Key until answered: a request lost to a kill may
// have created its run, and the retry must then return that run instead of a second one.
let replays = 0;
const creator = (async () => {
  for (let i = 0; i < RUNS && !done; ) {
    const r = await call(
      "POST",
      "/api/runs",
      subToken,
      { agent: "refund-desk", input: { order_id: `ORD-${10000 + i}`, amount_cents: 9000, reason: "Chaos test" } },
      { "idempotency-key": `chaos-${i}` },
    );
    if (r?.status === 201) {
      if (r.json.replayed) replays++;
      i++;
    } else await sleep(100);
  }
})();

// Approves every pending approval and resumes every paused run whose approvals are decided.
const decider = (async () => {
  while (!done) {
    const inbox = await call("GET", "/api/approvals?agent=refund-desk", revToken);
    for (const a of ((inbox?.json.approvals as { id: string }[]) ?? []).slice(0, 40)) {
      const r = await call("POST", `/api/approvals/${a.id}/decision`, revToken, { decision: "approve" });
      if (r?.status === 200) decisions++;
    }
    const paused = await s.db.run.findMany({ where: { state: "paused" }, select: { id: true }, take: 50 });
    for (const p of paused) {
      const r = await call("POST", `/api/runs/${p.id}/resume`, revToken, {});
      if (r?.status === 202) resumes++;
    }
    await sleep(200);
  }
})();

// Every few seconds a random process is SIGKILLed (restarted a second later) or stalled past its lease
// (SIGSTOP for 1.5-2.5 leases, then SIGCONT): its runs are taken over meanwhile, and when it wakes up it
// must write nothing more for them.
// One instance (SQLite): the next kill comes 0.5–3.5 s after it answers again. Counted from the restart,
// as for several instances, it fell ~0.6 s after the 1.4 s boot: the instance was up a fifth of the
// time and the runs finished only once the kills stopped (200 runs: 130 kills, 7 minutes).
const killer = (async () => {
  while (!done && Date.now() - t0 < DEADLINE_MS - 90_000) {
    await sleep(SQLITE ? 500 + Math.random() * 3000 : KILL_EVERY_MS);
    const p = procs[Math.floor(Math.random() * procs.length)];
    if (!p.up || p.stopped) continue;
    // One instance (SQLite): a stall only pauses everything; kills are what it has to survive.
    if (SQLITE || Math.random() < 0.5) {
      p.child?.kill("SIGKILL");
      kills++;
      await sleep(1000);
      launch(p);
      if (SQLITE) await healthy(p).catch(() => undefined);
    } else {
      // The stall runs on while the next faults are sent.
      const child = p.child;
      p.stopped = true;
      child?.kill("SIGSTOP");
      stalls++;
      void sleep(LEASE_MS * (1.5 + Math.random())).then(() => {
        child?.kill("SIGCONT");
        p.stopped = false;
      });
    }
  }
})();

for (;;) {
  const total = await s.db.run.count();
  const completed = await s.db.run.count({ where: { state: "completed" } });
  if (total >= RUNS && completed === total) break;
  if (Date.now() - t0 > DEADLINE_MS) break;
  await sleep(1000);
}
done = true;
await Promise.all([creator, decider, killer]);

// 50 concurrent approvals of one approval, spread over both instances: exactly one 2xx, one resume.
for (const p of procs) if (p.stopped) p.child?.kill("SIGCONT");
for (const p of procs) if (!p.up) launch(p);
for (const p of procs.filter((x) => x.port))
  for (let i = 0; i < 120 && !(await fetch(`http://127.0.0.1:${p.port}/api/health`).catch(() => null))?.ok; i++) await sleep(500);
const ports = procs.filter((p) => p.port).map((p) => p.port!);
// Retried until an instance takes it (one may still be restarting after the last fault); one run, whatever
// the number of tries, by its Idempotency-Key.
let race: { id: string } | null = null;
for (let i = 0; !race; i++) {
  const r = await call(
    "POST",
    "/api/runs",
    subToken,
    { agent: "deploy-bot", input: { service: "race", version: "1.0.0", environment: "staging" } },
    { "idempotency-key": `chaos-race-${t0}` },
  );
  if (r?.status === 201) race = r.json as { id: string };
  else if (i > 120)
    throw new Error(`the race run was not started: ${r ? `HTTP ${r.status} ${JSON.stringify(r.json)}` : "no instance answered"}`);
  else await sleep(500);
}
for (let i = 0; i < 100 && (await s.db.run.findUnique({ where: { id: race.id } }))?.state !== "paused"; i++) await sleep(100);
// One after another: the race is the decisions, not this script's own setup (50 transactions at once would
// wait on its small connection pool).
const raceTokens: { token: string }[] = [];
for (let i = 0; i < 50; i++) raceTokens.push(await createToken({ db: s.db }, admin, { body: { name: `racer-${i}`, role: "reviewer" } }));
const statuses = await Promise.all(
  raceTokens.map((t, i) =>
    fetch(`http://127.0.0.1:${ports[i % ports.length]}/api/approvals/${race.id}:2:call_deploy/decision`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve" }),
    }).then(
      (r) => r.status,
      () => 0,
    ),
  ),
);
for (let i = 0; i < 100 && (await s.db.run.findUnique({ where: { id: race.id } }))?.state !== "completed"; i++) await sleep(100);
const raceResumes = (await listCheckpoints(new PrismaStore(s.db), race.id, race.id)).filter((c) => c.phase === "resumed").length;
const raceOk = statuses.filter((x) => x >= 200 && x < 300).length;
console.log(
  `${label}: 50 concurrent approvals over ${ports.length} instance(s): ${raceOk} × 2xx, ${statuses.filter((x) => x === 409).length} × 409, ${raceResumes} resume(s), deployments ${await s.db.deployment.count({ where: { runId: race.id } })}`,
);
for (const p of procs) p.child?.kill("SIGTERM");
await sleep(1500);
for (const p of procs) if (p.up) p.child?.kill("SIGKILL");

// ---- Assertions from the database ----
const runs = await s.db.run.findMany({ where: { agentName: "refund-desk" }, select: { id: true, state: true } });
const byState: Record<string, number> = {};
for (const r of runs) byState[r.state] = (byState[r.state] ?? 0) + 1;
const refunds = await s.db.refund.groupBy({ by: ["runId"], _count: { _all: true } });
const outbox = await s.db.outboxMessage.groupBy({ by: ["runId"], _count: { _all: true } });
const refundCount = new Map(refunds.map((r) => [r.runId, r._count._all]));
const outboxCount = new Map(outbox.map((r) => [r.runId, r._count._all]));
const store = new PrismaStore(s.db);
const problems: string[] = [];
// Every decision has exactly one audit entry (they commit together).
const audited = new Map<string, number>();
for (const e of await s.db.auditEvent.findMany({
  where: { action: { in: ["approval.approve", "approval.edit_approve", "approval.reject"] } },
  select: { data: true },
})) {
  const id = String((JSON.parse(e.data) as { approval_id?: string }).approval_id);
  audited.set(id, (audited.get(id) ?? 0) + 1);
}
let unaudited = 0;
let segments = 0;
let overwritten = 0;
let takeovers = 0;
for (const r of runs) {
  if (r.state !== "completed") problems.push(`run ${r.id} ended ${r.state}`);
  if (refundCount.get(r.id) !== 1) problems.push(`run ${r.id}: ${refundCount.get(r.id) ?? 0} refunds`);
  if (outboxCount.get(r.id) !== 1) problems.push(`run ${r.id}: ${outboxCount.get(r.id) ?? 0} outbox rows`);
  const cps = (await listCheckpoints(store, r.id, r.id)).sort((a, b) => a.seq - b.seq);
  const seqs = cps.map((c) => c.seq);
  if (new Set(seqs).size !== seqs.length) problems.push(`run ${r.id}: a seq was written twice (two executors at once)`);
  for (let i = 1; i < cps.length; i++)
    if (cps[i].timestamp_ms < cps[i - 1].timestamp_ms - 5)
      problems.push(`run ${r.id}: seq ${cps[i].seq} is older than seq ${cps[i - 1].seq}`);
  // Each execution segment starts from the newest durable record: nobody resumed from a stale point
  // while another executor was still writing.
  for (const c of cps.filter((x) => x.payload.resumed === true)) {
    segments++;
    if (c.phase === "run_started") takeovers++;
    const prev = cps.filter((x) => x.seq < c.seq).at(-1);
    if (prev && c.payload.from_seq !== prev.seq)
      problems.push(`run ${r.id}: segment at seq ${c.seq} resumed from ${String(c.payload.from_seq)}, newest was ${prev.seq}`);
  }
  const postLlm = cps.filter((c) => c.phase === "post_llm").map((c) => c.step);
  if (new Set(postLlm).size !== postLlm.length) problems.push(`run ${r.id}: a step called the model twice`);
  for (const a of await listApprovals(store, r.id, r.id)) {
    const people = a.decisions.filter((d) => !isSystemDecision(d)).length;
    if ((audited.get(a.id) ?? 0) !== people) {
      unaudited++;
      problems.push(`approval ${a.id}: ${people} decision(s), ${audited.get(a.id) ?? 0} audit entries`);
    }
  }
  // Overwritten records: a stalled worker that woke up and wrote over its successor's terminal record.
  const terminals = cps.filter((c) => c.phase === "run_terminal");
  if (terminals.length !== 1) problems.push(`run ${r.id}: ${terminals.length} terminal records`);
  const latest = await loadLatestCheckpoint(store, r.id, r.id);
  if (latest.phase !== "run_terminal" || latest.payload.state !== "completed" || latest.seq !== cps.at(-1)?.seq) {
    overwritten++;
    problems.push(
      `run ${r.id}: latest is ${latest.phase}/${String(latest.payload.state)} at seq ${latest.seq}, newest record is seq ${cps.at(-1)?.seq}`,
    );
  }
}
const duplicates = [...refundCount.values(), ...outboxCount.values()].reduce((n, c) => n + Math.max(0, c - 1), 0);
console.log(
  `${label}: ${runs.length} runs in ${((Date.now() - t0) / 1000).toFixed(0)} s; states ${JSON.stringify(byState)}; ${kills} SIGKILLs, ${stalls} stalls past the lease (SIGSTOP/SIGCONT); ${decisions} decisions, ${resumes} resumes via REST; ${replays} starts answered by their Idempotency-Key after a lost answer`,
);
console.log(
  `${label}: decisions without their audit entry ${unaudited};`,
  `refunds ${[...refundCount.values()].reduce((a, b) => a + b, 0)}, outbox ${[...outboxCount.values()].reduce((a, b) => a + b, 0)}; duplicate effects ${duplicates}; overwritten records ${overwritten}; ${segments} resumed segments of which ${takeovers} after a crash or stall; ${reexecutions} tool re-executions absorbed by idempotency keys`,
);
if (errors.length) console.log(`${label}: ${errors.length} unexpected error log lines, first: ${errors[0]}`);
if (problems.length && process.env.CHAOS_KEEP) console.log(`${label}: database kept at ${s.url}`);
else await s.drop();
if (raceOk !== 1 || raceResumes !== 1 || statuses.filter((x) => x === 409).length !== 49)
  problems.push(`concurrent approvals: ${raceOk} succeeded, ${raceResumes} resumes`);
if (runs.length !== RUNS) problems.push(`${runs.length} runs exist for ${RUNS} starts (a retried start must not create a second run)`);
if (problems.length) {
  console.error(`${label}: FAILED (${problems.length} problems)\n- ${problems.slice(0, 20).join("\n- ")}`);
  process.exit(1);
}
console.log(
  `${label}: ok — every run completed, every effect exactly once, no run executed twice at once, nothing written after a takeover, every decision audited`,
);
process.exit(0);
