// npm run bench:notify — time from a request for a decision to its first email, through a real SMTP server.
// One instance: the instance whose run paused plans and sends (targets: p95 ≤ 2 s). Across instances: the
// instance whose run paused plans the messages and dies before sending; another instance's loop (polling
// every AFK_NOTIFY_POLL_MS, default 1 s) sends them (target: p95 ≤ 5 s). SQLite always; PostgreSQL too
// with BENCH_POSTGRES_URL or TEST_POSTGRES_URL. BENCH_NOTIFY_RUNS changes the number of runs (default 20).
import type { Actor } from "../lib/auth/actor.ts";
import { type AppContext, createContext } from "../lib/context.ts";
import { EmailChannel } from "../lib/notify/email.ts";
import { startRun } from "../lib/services/start.ts";
import { scratchDatabase } from "../tests/helpers/scratch.ts";
import { smtpProcess } from "../tests/helpers/smtp.ts";

process.env.LOG_LEVEL ??= "warn";
const RUNS = Number(process.env.BENCH_NOTIFY_RUNS ?? 20);
const POLL_MS = Number(process.env.AFK_NOTIFY_POLL_MS ?? 1000);
const boss: Actor = { id: "b-boss", email: "boss@example.com", name: "Boss", role: "admin" };
const people = [
  { id: "b-boss", email: "boss@example.com", name: "Boss", role: "admin", groups: "[]" },
  { id: "b-fin", email: "fin@example.com", name: "Fin", role: "reviewer", groups: '["finance"]' },
  { id: "b-ops", email: "ops@example.com", name: "Ops", role: "reviewer", groups: '["ops"]' },
];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

async function scenario(provider: "sqlite" | "postgresql", pgUrl: string | undefined, across: boolean) {
  const t = await scratchDatabase(provider, pgUrl);
  const smtp = await smtpProcess();
  const contexts: AppContext[] = [];
  try {
    for (const p of people) await t.db.user.create({ data: { ...p, passwordHash: "x" } });
    const notify = (gatherMs: number) => ({
      channels: [new EmailChannel({ url: smtp.url, from: "afk@bench.test" })],
      baseUrl: "https://bench.test",
      burstMs: 0,
      pollMs: POLL_MS,
      gatherMs,
    });
    // Across instances, the pausing instance never gets to send (its send would wait an hour).
    const pausing = createContext(t.db, { notify: notify(across ? 3_600_000 : 200) });
    contexts.push(pausing);
    // Its own loop runs too, as on every instance (it sends retries; on one instance it finds nothing else).
    if (!across) pausing.notifier!.start();
    if (across) {
      const other = createContext(t.db, { notify: notify(200) });
      contexts.push(other);
      other.notifier!.start();
    }
    for (let i = 0; i < RUNS; i++) {
      // One request at a time, as reviewers see them arrive (a burst is one digest: tests/notify/notify-email.test.ts).
      await startRun(pausing, boss, {
        body: { agent: "refund-desk", input: { order_id: `ORD-${9000 + i}`, amount_cents: 250_000, reason: "bench" } },
      });
      await pausing.worker.idle();
      await new Promise((r) => setTimeout(r, 250));
    }
    await pausing.worker.idle();
    const rows = await t.db.notification.findMany({ where: { kind: "request" }, select: { approvalId: true, requestedAt: true } });
    const requested = new Map(rows.map((r) => [r.approvalId, r.requestedAt.getTime()]));
    await smtp.waitFor(
      () => [...requested.keys()].every((id) => smtp.received.some((m) => m.mail.text?.includes(encodeURIComponent(id)))),
      120_000,
    );
    const latencies = [...requested].map(
      ([id, at]) => Math.min(...smtp.received.filter((m) => m.mail.text?.includes(encodeURIComponent(id))).map((m) => m.at)) - at,
    );
    const name = `${provider}, ${across ? "across instances" : "one instance"}`;
    console.log(
      `${name.padEnd(34)} requests ${String(latencies.length).padStart(4)}  messages ${String(smtp.received.length).padStart(4)}  first notification p50 ${pct(latencies, 50)} ms  p95 ${pct(latencies, 95)} ms  max ${Math.max(...latencies)} ms`,
    );
    return pct(latencies, 95);
  } finally {
    for (const c of contexts) {
      c.notifier?.stop();
      await c.worker.idle();
    }
    await smtp.close();
    await t.drop();
  }
}

const pgUrl = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
const targets: [string, number, number][] = [];
for (const provider of pgUrl ? (["sqlite", "postgresql"] as const) : (["sqlite"] as const)) {
  targets.push([`${provider} one instance`, await scenario(provider, pgUrl, false), 2000]);
  targets.push([`${provider} across instances`, await scenario(provider, pgUrl, true), 5000]);
}
const missed = targets.filter(([, p95, target]) => p95 > target);
for (const [name, p95, target] of missed) console.log(`MISSED: ${name} p95 ${p95} ms > ${target} ms`);
process.exit(missed.length ? 1 : 0);
