// npm run bench:console — server time of the console's pages on a large database.
// Seeds 100,000 runs (2,000 of them paused with a pending approval) and one run with 10,000 checkpoints,
// then times the functions each page and API route calls (query + view building; React rendering is not
// included) and prints p50/p95. SQLite always; PostgreSQL too with BENCH_POSTGRES_URL or TEST_POSTGRES_URL.
// BENCH_RUNS / BENCH_CHECKPOINTS change the sizes.
import { randomUUID } from "node:crypto";
import type { Db } from "../lib/db/client.ts";
import { scratchDatabase } from "../tests/helpers/scratch.ts";
import type { Actor } from "../lib/auth/actor.ts";
import { type AppContext, createContext } from "../lib/context.ts";
import { inboxFirstScreen, listInbox } from "../lib/services/inbox.ts";
import { FIRST_ROWS } from "../app/approvals/first-screen.ts";
import { getRunView, listRuns } from "../lib/services/run-view.ts";
import { startRun } from "../lib/services/start.ts";
import { timelinePage } from "../lib/services/timeline.ts";
import { CHECKPOINT_SCHEMA_VERSION, SCHEMA_VERSIONS, type CheckpointRecord, PHASES, keys, listCheckpoints } from "../lib/runner/index.ts";

process.env.LOG_LEVEL ??= "warn";
const DEFAULT_RUNS = Number(process.env.BENCH_RUNS ?? 100_000);
const DEFAULT_CHECKPOINTS = Number(process.env.BENCH_CHECKPOINTS ?? 10_000);
const ITER = 40;

const reviewer: Actor = { id: "bench-reviewer", email: "reviewer@example.com", name: "R", role: "reviewer" };
const submitter: Actor = { id: "bench-submitter-7", email: "sub7@example.com", name: "S", role: "submitter" };

/** Seeds RUNS runs (PAUSED of them waiting on an approval) and one run with CHECKPOINTS checkpoints. */
export async function seed(
  db: Db,
  ex: AppContext,
  RUNS = DEFAULT_RUNS,
  CHECKPOINTS = DEFAULT_CHECKPOINTS,
  PAUSED = Math.min(2_000, RUNS),
): Promise<{ longRun: string; midCursor: string; deepRunCursor: string }> {
  const t0 = Date.now();
  const agents = ["refund-desk", "deploy-bot", "release-coordinator", "support-writer"];
  const states = ["completed", "completed", "completed", "failed", "cancelled"];
  const base = Date.now() - RUNS * 1000;
  const batch = 2_000;
  let deepRunCursor = "";
  for (let i = 0; i < RUNS; i += batch) {
    const rows = [];
    for (let j = i; j < Math.min(RUNS, i + batch); j++) {
      const id = `run-${String(j).padStart(7, "0")}-${randomUUID().slice(0, 8)}`;
      const paused = j >= RUNS - PAUSED;
      if (j === Math.floor(RUNS / 2)) deepRunCursor = id;
      rows.push({
        id,
        threadId: id,
        agentName: agents[j % 4],
        state: paused ? "paused" : states[j % 5],
        step: 3,
        phase: paused ? "paused" : "run_terminal",
        input: "{}",
        submittedById: `bench-submitter-${j % 50}`,
        submittedByEmail: `sub${j % 50}@example.com`,
        model: "demo",
        totalTokens: 300,
        costUsd: 0.0003,
        createdAt: new Date(base + j * 1000),
        finishedAt: paused ? null : new Date(base + j * 1000 + 500),
      });
    }
    await db.run.createMany({ data: rows });
    // Each paused run waits on one approval, as the runner stores it.
    const approvals = rows
      .filter((r) => r.state === "paused")
      .map((r, k) => ({
        id: `${r.id}:2:call_deploy`,
        threadId: r.id,
        runId: r.id,
        rootRunId: r.id,
        step: 2,
        toolCallId: "call_deploy",
        kind: "tool",
        agentName: "deploy-bot",
        toolName: "deploy",
        status: "pending",
        version: 0,
        requestedAtMs: BigInt(r.createdAt.getTime()),
        record: JSON.stringify({
          schema_version: SCHEMA_VERSIONS.approval,
          version: 0,
          id: `${r.id}:2:call_deploy`,
          run_id: r.id,
          root_run_id: r.id,
          thread_id: r.id,
          step: 2,
          tool_call_id: "call_deploy",
          tool_name: "deploy",
          agent_name: "deploy-bot",
          agent_path: "deploy-bot",
          args: { service: `svc-${k}`, version: "1.0.0", environment: "production" },
          input_hash: "x",
          reason: "Production deployments need two reviewers",
          rule_id: "production-deploys",
          quorum: 2,
          requested_at_ms: r.createdAt.getTime(),
          deadline_ms: null,
          fallback: "deny",
          requested_by: r.submittedByEmail,
          status: "pending",
          decisions: [],
          approved_args: null,
          decided_at_ms: null,
        }),
      }));
    if (approvals.length) await db.approval.createMany({ data: approvals });
  }
  // One real run, then 10,000 checkpoints in its history (what a long agent loop leaves behind).
  const { id: longRun } = await startRun(ex, submitter, {
    body: {
      agent: "deploy-bot",
      input: { service: "long", version: "1.0.0", environment: "staging" },
    },
  });
  await ex.worker.idle();
  const real = await listCheckpoints(ex.store, longRun, longRun);
  const snapshot = real.find((c) => c.payload.runtime_snapshot)!.payload.runtime_snapshot;
  const phases = PHASES.filter((p) => p !== "run_terminal" && p !== "paused" && p !== "resumed");
  const extra: {
    threadId: string;
    key: string;
    value: string;
    kind: string;
    runId: string;
    step: number;
    phase: string;
    timestampMs: bigint;
  }[] = [];
  let ts = Date.now();
  for (let i = real.length; i < CHECKPOINTS; i++) {
    const phase = phases[i % phases.length];
    const step = 10 + Math.floor(i / phases.length);
    const rec: CheckpointRecord = {
      schema_version: CHECKPOINT_SCHEMA_VERSION,
      run_id: longRun,
      thread_id: longRun,
      step,
      phase,
      timestamp_ms: ts++,
      seq: i,
      payload: phase === "step_started" ? { state: "running", message_count: 6, runtime_snapshot: snapshot } : { note: "synthetic" },
    };
    extra.push({
      threadId: longRun,
      key: keys.checkpoint(longRun, step, i, phase),
      value: JSON.stringify(rec),
      kind: "checkpoint",
      runId: longRun,
      step,
      phase,
      timestampMs: BigInt(rec.timestamp_ms),
    });
    if (extra.length === 1000) await db.stateEntry.createMany({ data: extra.splice(0) });
  }
  if (extra.length) await db.stateEntry.createMany({ data: extra });
  // A cursor halfway through the long run's history.
  const page = await timelinePage({ db: db }, reviewer, { runId: longRun, query: { take: 500 } });
  let cursor = page.nextCursor!;
  for (let k = 0; k < Math.floor(CHECKPOINTS / 1000); k++)
    cursor = (await timelinePage({ db: db }, reviewer, { runId: longRun, query: { take: 500, cursor } })).nextCursor ?? cursor;
  console.log(
    `seeded ${RUNS} runs (${PAUSED} paused with an approval) and a run with ${await db.stateEntry.count({ where: { runId: longRun, kind: "checkpoint" } })} checkpoints in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  return { longRun, midCursor: cursor, deepRunCursor };
}

async function time(fn: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < 3; i++) await fn(); // warm
  const ms: number[] = [];
  for (let i = 0; i < ITER; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(ITER * 0.5)], p95: ms[Math.floor(ITER * 0.95) - 1] };
}

async function bench(provider: "sqlite" | "postgresql", pgUrl?: string) {
  const s = await scratchDatabase(provider, pgUrl, "afk_bench");
  try {
    const ex = createContext(s.db);
    const { longRun, midCursor, deepRunCursor } = await seed(s.db, ex);
    const cases: [string, () => Promise<unknown>][] = [
      ["runs list, first page", () => listRuns({ db: s.db }, reviewer, { query: {} })],
      ["runs list, page at run 50,000", () => listRuns({ db: s.db }, reviewer, { query: { cursor: deepRunCursor } })],
      ["runs list, state=failed + agent", () => listRuns({ db: s.db }, reviewer, { query: { state: "failed", agent: "deploy-bot" } })],
      ["runs list, submitter's own", () => listRuns({ db: s.db }, submitter, { query: {} })],
      ["runs list, id search", () => listRuns({ db: s.db }, reviewer, { query: { q: deepRunCursor.slice(0, 12) } })],
      ["inbox (2,000 pending)", () => listInbox({ db: s.db }, reviewer, { query: {} })],
      ["inbox page's first screen", () => inboxFirstScreen({ db: s.db }, reviewer, FIRST_ROWS)],
      ["run page (10k checkpoints)", () => getRunView(ex, reviewer, { runId: longRun })],
      ["timeline, first page", () => timelinePage({ db: s.db }, reviewer, { runId: longRun, query: {} })],
      ["timeline, page at checkpoint ~5,000", () => timelinePage({ db: s.db }, reviewer, { runId: longRun, query: { cursor: midCursor } })],
    ];
    console.log(`\n${provider}: server time over ${ITER} calls (ms)`);
    console.log("page                                   p50      p95   target p95 ≤ 150");
    for (const [name, fn] of cases) {
      const r = await time(fn);
      console.log(
        `${name.padEnd(36)} ${r.p50.toFixed(1).padStart(7)}  ${r.p95.toFixed(1).padStart(7)}   ${r.p95 <= 150 ? "met" : "MISSED"}`,
      );
    }
  } finally {
    await s.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await bench("sqlite");
  const pgUrl = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
  if (pgUrl) await bench("postgresql", pgUrl);
  else console.log("\n(PostgreSQL skipped: set BENCH_POSTGRES_URL or TEST_POSTGRES_URL)");
}
