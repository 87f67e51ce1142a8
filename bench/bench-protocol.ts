// The runtime protocol on PostgreSQL, two instances (each its own context and LISTEN connection) on one
// scratch database: A holds a runtime's long-poll, B takes the reviewer's decision; the wake-up goes
// through NOTIFY. Prints the long-poll wake-up after a decision (p50/p95), interrupts parked per second
// (several runtimes at once) and how many decisions were handed out twice when every one is claimed four
// times at once on both instances (must be 0).
// Run: TEST_POSTGRES_URL=postgresql://… npx tsx --conditions=react-server bench/bench-protocol.ts
import { createContext } from "../lib/context.ts";
import { PgLiveBus } from "../lib/live/bus.ts";
import { decide } from "../lib/services/decide.ts";
import { claimDecision } from "../lib/services/runtime-claim.ts";
import { runtimeFromToken } from "../lib/auth/tokens.ts";
import { listDecisions, parkInterrupts, registerRun } from "../lib/services/runtime-protocol.ts";
import { createToken } from "../lib/services/tokens.ts";
import { scratchDatabase } from "../tests/helpers/scratch.ts";

const base = process.env.TEST_POSTGRES_URL;
if (!base) throw new Error("Set TEST_POSTGRES_URL to a PostgreSQL server");
const SAMPLES = Number(process.env.SAMPLES ?? 60);
const PARKED = Number(process.env.PARKED ?? 600);
const RUNTIMES = Number(process.env.RUNTIMES ?? 8);
const CLAIMED = Number(process.env.CLAIMED ?? 200);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (x: number) => `${x.toFixed(1)} ms`;

const t = await scratchDatabase("postgresql", base, "afk_bench_protocol");
const a = createContext(t.db, { live: new PgLiveBus(t.url) });
const b = createContext(t.db, { live: new PgLiveBus(t.url) });
await Promise.all([(a.live as PgLiveBus).ready, (b.live as PgLiveBus).ready]);
const admin = { id: "u-admin", email: "admin@example.com", name: "A", role: "admin" as const };
const reviewer = { id: "u-rev", email: "rev@example.com", name: "R", role: "reviewer" as const };
const { token } = await createToken(a, admin, { body: { name: "bench", role: "runtime" } });
const rt = (await runtimeFromToken(a.db, token))!;
const interrupt = (id: string) => ({ id, action: { name: "issue_refund", args: { order_id: id, amount_cents: 100 } }, message: "bench" });

try {
  // 1. Long-poll wake-up: held on A, decided on B.
  const fromDecision: number[] = [];
  const fromCommit: number[] = [];
  for (let i = 0; i < SAMPLES + 5; i++) {
    const run = await registerRun(a, rt, { body: { externalId: `wake-${i}`, framework: "bench", agent: "bench" } });
    const [p] = (await parkInterrupts(a, rt, { runId: run.id, body: { interrupts: [interrupt("x")] } })).interrupts;
    let wokeAt = 0;
    const held = listDecisions(a, rt, { runId: run.id, query: { wait: "20" } }).then((r) => {
      wokeAt = performance.now();
      return r;
    });
    await new Promise((r) => setTimeout(r, 30));
    const start = performance.now();
    await decide(b, reviewer, { approvalId: p.approvalId, body: { decision: "approve" } });
    const committed = performance.now();
    const page = await held;
    if (page.decisions.length !== 1) throw new Error("the long-poll answered without the decision");
    if (i >= 5) {
      fromDecision.push(wokeAt - start);
      fromCommit.push(Math.max(0, wokeAt - committed));
    }
  }

  // 2. Interrupts parked per second: RUNTIMES runtimes parking one-call steps at once.
  const runs = await Promise.all(
    Array.from({ length: RUNTIMES }, (_, k) =>
      registerRun(a, rt, { body: { externalId: `park-${k}`, framework: "bench", agent: "bench" } }),
    ),
  );
  const parkStart = performance.now();
  await Promise.all(
    runs.map(async (run, k) => {
      for (let i = 0; i < PARKED / RUNTIMES; i++)
        await parkInterrupts(k % 2 ? b : a, rt, { runId: run.id, body: { interrupts: [interrupt(`p-${i}`)] } });
    }),
  );
  const parkedPerS = PARKED / ((performance.now() - parkStart) / 1000);

  // 3. Claims: every decision claimed four times at once, twice on each instance.
  const claimRun = await registerRun(a, rt, { body: { externalId: "claims", framework: "bench", agent: "bench" } });
  const parked = (
    await parkInterrupts(a, rt, {
      runId: claimRun.id,
      body: { interrupts: Array.from({ length: Math.min(CLAIMED, 100) }, (_, i) => interrupt(`c-${i}`)) },
    })
  ).interrupts;
  const more =
    CLAIMED > 100
      ? (
          await parkInterrupts(a, rt, {
            runId: claimRun.id,
            body: { interrupts: Array.from({ length: CLAIMED - 100 }, (_, i) => interrupt(`c-${100 + i}`)) },
          })
        ).interrupts
      : [];
  const all = [...parked, ...more];
  for (const p of all) await decide(b, reviewer, { approvalId: p.approvalId, body: { decision: "approve" } });
  let twice = 0;
  let never = 0;
  for (const p of all) {
    const outcomes = await Promise.all(
      [a, b, a, b].map((ctx, k) =>
        claimDecision(ctx, rt, { runId: claimRun.id, interruptId: p.interruptId, body: { claimant: `claimant-${k}` } }).then(
          () => 1,
          () => 0,
        ),
      ),
    );
    const won = outcomes.reduce<number>((x, y) => x + y, 0);
    if (won > 1) twice++;
    if (won === 0) never++;
  }

  console.log(`long-poll wake-up, decision on B, long-poll on A (${SAMPLES} samples):`);
  console.log(`  from the decision's start: p50 ${ms(pct(fromDecision, 50))}, p95 ${ms(pct(fromDecision, 95))}`);
  console.log(`  after decide() returned:   p50 ${ms(pct(fromCommit, 50))}, p95 ${ms(pct(fromCommit, 95))}`);
  console.log(`interrupts parked: ${PARKED} by ${RUNTIMES} runtimes at once, ${parkedPerS.toFixed(0)} per second`);
  console.log(`claims: ${all.length} decisions claimed 4 times each at once: claimed twice ${twice}, never ${never}`);
} finally {
  await a.live.close();
  await b.live.close();
  await t.drop();
}
