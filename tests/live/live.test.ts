// Live updates: what a browser tab and a worker hear, on one process (SQLite) and across processes
// through LISTEN/NOTIFY (PostgreSQL), and a cancel that reaches the instance executing the run.
import { describe, expect, it } from "vitest";
import pg from "pg";
import { LIVE_CHANNEL, type LiveMessage, PgLiveBus } from "@/lib/live/bus";
import { testContext } from "../helpers/context";
import { cancelRun } from "@/lib/services/operate";
import { startRun } from "@/lib/services/start";
import type { Actor } from "@/lib/auth/actor";
import { databaseWithContext, freshDatabase } from "../helpers/databases";

const submitter: Actor = { id: "u-sub", email: "submitter@example.com", name: "S", role: "submitter" };
const operator: Actor = { id: "u-op", email: "operator@example.com", name: "Op", role: "operator" };
const pgUrl = process.env.TEST_POSTGRES_URL;

const until = async (cond: () => boolean | Promise<boolean>, ms = 10_000) => {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("live updates in one process", () => {
  // Each demo call takes 600 ms: half before the first word, the words over the rest.
  const h = databaseWithContext("sqlite", { demoLatencyMs: 600 });

  it("a run's streamed text arrives in order with offsets, then the run change that makes it stale", async () => {
    const got: LiveMessage[] = [];
    const off = h.ctx.live.subscribe((m) => got.push(m));
    const { id } = await startRun(h.ctx, submitter, { body: { agent: "order-status", input: { order_id: "ORD-1234" } } });
    await until(() => got.some((m) => m.topic === "delta" && m.runId === id));
    // Mid-stream, a late subscriber gets the text so far.
    expect(h.ctx.live.liveText(id)?.text.length).toBeGreaterThan(0);
    await until(async () => (await h.t.db.run.findUnique({ where: { id } }))?.state === "completed");
    off();
    const mine = got.filter((m) => "runId" in m && m.runId === id);
    const deltas = mine.filter((m): m is Extract<LiveMessage, { topic: "delta" }> => m.topic === "delta");
    const step1 = deltas.filter((d) => d.step === 1);
    let text = "";
    for (const d of step1) {
      expect(d.offset).toBe(text.length);
      text += d.text;
    }
    expect(text).toBe("Looking it up.");
    const final = deltas
      .filter((d) => d.step === 2)
      .map((d) => d.text)
      .join("");
    expect(final).toBe("Order ORD-1234 is delivered.");
    // The run change after the step's text, and the terminal state last.
    const lastDelta1 = mine.indexOf(step1.at(-1)!);
    expect(mine.slice(lastDelta1 + 1).some((m) => m.topic === "run")).toBe(true);
    expect(mine.at(-1)).toEqual({ topic: "run", runId: id, state: "completed" });
    expect(h.ctx.live.liveText(id)).toBeNull();
  });

  it("a pause and a decision tell the inbox", async () => {
    const got: LiveMessage[] = [];
    const off = h.ctx.live.subscribe((m) => got.push(m));
    const { id } = await startRun(h.ctx, submitter, {
      body: {
        agent: "deploy-bot",
        input: { service: "live-svc", version: "1.0.0", environment: "staging" },
      },
    });
    await until(() => got.some((m) => m.topic === "run" && m.runId === id && m.state === "paused"));
    expect(got.some((m) => m.topic === "inbox")).toBe(true);
    off();
  });
});

/** Two processes' buses on one database, each recording what it hears. */
async function twoBuses() {
  const a = new PgLiveBus(pgUrl!);
  const b = new PgLiveBus(pgUrl!);
  await Promise.all([a.ready, b.ready]);
  const atA: LiveMessage[] = [];
  const atB: LiveMessage[] = [];
  a.subscribe((m) => atA.push(m));
  b.subscribe((m) => atB.push(m));
  return { a, b, atA, atB };
}

describe.skipIf(!pgUrl)("live updates across processes (PostgreSQL LISTEN/NOTIFY)", () => {
  it("a message published on one bus reaches the other once; a foreign payload is ignored", async () => {
    const { a, b, atA, atB } = await twoBuses();
    const raw = new pg.Client({ connectionString: pgUrl });
    await raw.connect();
    await raw.query("SELECT pg_notify($1, $2)", [LIVE_CHANNEL, '{"v":"v9","m":{"topic":"inbox"}}']);
    await raw.query("SELECT pg_notify($1, $2)", [LIVE_CHANNEL, "not json"]);
    await raw.end();
    a.publish({ topic: "inbox" });
    // 10 kB of streamed text: split below pg_notify's 8000-byte limit, reassembled by the receiver.
    const long = "x".repeat(10_000);
    a.publish({ topic: "delta", runId: "r1", step: 1, offset: 0, text: long });
    await until(() => atB.filter((m) => m.topic === "delta").length === 4);
    expect(atB.filter((m) => m.topic === "inbox")).toHaveLength(1);
    expect(atA.filter((m) => m.topic === "inbox")).toHaveLength(1); // its own, once (delivered locally)
    expect(b.liveText("r1")?.text).toBe(long);
    await new Promise((r) => setTimeout(r, 100));
    expect(atB).toHaveLength(5); // nothing from the foreign payloads
    await a.close();
    await b.close();
  });

  it("text streamed word by word goes to other processes in a few messages, in order, before the run change", async () => {
    const { a, b, atA, atB } = await twoBuses();
    const words = Array.from({ length: 300 }, (_, i) => `word${i} `);
    let offset = 0;
    for (const w of words) {
      a.publish({ topic: "delta", runId: "r2", step: 3, offset, text: w });
      offset += w.length;
      if (offset % 7 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    a.publish({ topic: "run", runId: "r2", state: "completed" });
    await until(() => atB.some((m) => m.topic === "run"));
    // This process saw every word at once; the other got the same text in far fewer messages.
    expect(atA.filter((m) => m.topic === "delta")).toHaveLength(300);
    const deltas = atB.filter((m) => m.topic === "delta");
    expect(deltas.length).toBeLessThanOrEqual(10);
    expect(deltas.map((m) => m.text).join("")).toBe(words.join(""));
    expect(deltas.map((m) => m.offset)).toEqual(deltas.map((_, i) => deltas.slice(0, i).reduce((n, m) => n + m.text.length, 0)));
    expect(atB.at(-1)).toEqual({ topic: "run", runId: "r2", state: "completed" });
    await a.close();
    await b.close();
  });

  // How fast a cancel lands is a figure for a benchmark; what this asserts is the path: the notice, not the
  // lease's heartbeat (every 20 s here) nor the end of the 20 s model call, ends the run.
  it("a cancel asked on another instance aborts the model call in flight through the notice", async () => {
    const t = await freshDatabase("postgresql");
    // A model that takes 20 s per call, and leases long enough that no heartbeat would notice in time.
    const busA = new PgLiveBus(t.url);
    const busB = new PgLiveBus(t.url);
    await Promise.all([busA.ready, busB.ready]);
    const a = testContext(t.db, { demoLatencyMs: 20_000, leaseMs: 60_000, live: busA });
    const b = testContext(t.db, { leaseMs: 60_000, live: busB });
    try {
      const { id } = await startRun(a, submitter, { body: { agent: "order-status", input: { order_id: "ORD-1234" } } });
      await until(async () => (await t.db.run.findUnique({ where: { id } }))?.phase === "pre_llm");
      const t0 = Date.now();
      await cancelRun(b, operator, { runId: id });
      await until(async () => (await t.db.run.findUnique({ where: { id } }))?.state === "cancelled", 5000);
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(a.runtime.demo.calls).toBe(1);
    } finally {
      await a.worker.idle();
      await busA.close();
      await busB.close();
      await t.drop();
    }
  });
});
