// Revocation → closed stream, p50/p95 (`npm run bench:revocation`). For each way to lose access (a token
// revoked, a user disabled, a role changed, groups changed, a sign-out everywhere), a new reviewer follows a
// run and the inbox on GET /api/events's own code; the change is made through the services, and the time is
// from the change's commit to the end of each stream as its client reads it. SQLite: one instance, the
// in-process bus. PostgreSQL: the change on instance A, the streams on instance B, the notice through
// LISTEN/NOTIFY. Quiet: nothing else happens (the access notice ends the streams). Busy: events for the run
// and the inbox every 10 ms from the change on (each is checked before it would go out).
//   tsx --conditions=react-server bench/bench-revocation.ts [rounds per kind, default 20] [only the ways naming this]
import { PgLiveBus } from "../lib/live/bus.ts";
import { createContext } from "../lib/context.ts";
import { startRun } from "../lib/services/start.ts";
import { KINDS, type Kind, benchAdmin, revokeWhileFollowing } from "../tests/helpers/revocation.ts";
import { scratchDatabase } from "../tests/helpers/scratch.ts";

const rounds = Number(process.argv[2] ?? 20);
// Optional: only the ways whose name contains this ("SCIM").
const only = process.argv[3];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const ms = (x: number) => `${x.toFixed(1)} ms`;
const fmt = (xs: number[]) => `n=${xs.length} p50 ${ms(pct(xs, 50))}, p95 ${ms(pct(xs, 95))}, max ${ms(Math.max(...xs))}`;

async function bench(provider: "sqlite" | "postgresql", pgUrl?: string) {
  const t = await scratchDatabase(provider, pgUrl, "afk_bench");
  const buses = provider === "postgresql" ? [new PgLiveBus(t.url), new PgLiveBus(t.url)] : [];
  await Promise.all(buses.map((b) => b.ready));
  const a = createContext(t.db, { live: buses[0] });
  const b = buses[1] ? createContext(t.db, { live: buses[1] }) : a;
  try {
    const { id: runId } = await startRun(a, benchAdmin, { body: { agent: "order-status", input: { order_id: "ORD-1234" } } });
    await a.worker.idle();
    for (const mode of ["quiet", "busy"] as const) {
      const all: number[] = [];
      for (const kind of (Object.keys(KINDS) as Kind[]).filter((k) => !only || k.includes(only))) {
        const xs: number[] = [];
        const fromCall: number[] = [];
        for (let i = 0; i < rounds; i++) {
          const out = await revokeWhileFollowing(b, a, runId, kind, { busy: mode === "busy" });
          if (out.after.run.length + out.after.inbox.length > 0) throw new Error(`${kind}: an event went out after the change`);
          xs.push(out.closedMs.run, out.closedMs.inbox);
          fromCall.push(out.sinceCallMs.run, out.sinceCallMs.inbox);
        }
        if (xs.some(Number.isNaN)) throw new Error(`${kind}: a stream stayed open`);
        all.push(...xs);
        // Negative: the streams closed before the call returned (it goes on after its commit, e.g. a SCIM
        // answer's body); the second figure counts from the start of the call.
        console.log(
          `revocation (${provider}${provider === "postgresql" ? ", 2 instances" : ""}, ${mode}) ${kind}: ${fmt(xs)}; from the call's start ${fmt(fromCall)}`,
        );
      }
      console.log(`revocation (${provider}, ${mode}) all: ${fmt(all)}`);
    }
  } finally {
    await a.worker.idle();
    await Promise.all(buses.map((x) => x.close()));
    await t.drop();
  }
}

await bench("sqlite");
const pgUrl = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
if (pgUrl) await bench("postgresql", pgUrl);
else console.log("(PostgreSQL skipped: set BENCH_POSTGRES_URL or TEST_POSTGRES_URL)");
process.exit(0);
