// Every execution goes through the one dispatch path, a takeover included (PostgreSQL, real pg-boss).
// Three "processes" in one test process, each its own database client, live bus, queue and instance id:
// D is a worker that died (its model never answers, its heartbeat never beats), W a web-only instance
// (AFK_WORKERS=0: queue concurrency 0) and X a worker with concurrency 2. When D's leases expire, W's and
// X's sweeps take its runs over at the same moment: the runs are re-reserved and queued, W executes none
// of them, and X never holds more than 2 at once although 6 are handed to it together.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { testContext } from "../helpers/context";
import { freshDatabase, type TestDb } from "../helpers/databases";
import { scriptedModel } from "../helpers/scripted-model";
import type { AppContext } from "@/lib/context";
import { createDb, type Db } from "@/lib/db/client";
import { PgLiveBus } from "@/lib/live/bus";
import { type Agent, defineTool, type ModelAdapter } from "@/lib/runner";
import { startRun } from "@/lib/services/start";
import { sub } from "../helpers/actors";

const pgUrl = process.env.TEST_POSTGRES_URL;
const RUNS = 6;
const CONCURRENCY = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// One tool call, then done. The tool counts its executions and does not de-duplicate.
function world() {
  const executions = new Map<string, number>();
  const bump = defineTool({
    name: "bump",
    description: "count one execution",
    schema: z.object({}),
    async execute(_a, ctx) {
      const key = `${ctx.runId}:${ctx.toolCallId}`;
      executions.set(key, (executions.get(key) ?? 0) + 1);
      return { ok: true };
    },
  });
  const agent: Agent = {
    name: "takeover-test",
    model: "gate:x",
    instructions: "",
    tools: [bump],
    inputSchema: z.object({}),
    toUserMessage: () => "go",
  };
  return { executions, agent };
}

// A model whose calls are counted while in flight (a run in a model call is a run this process holds).
function countingModel(opts: { hold?: Promise<void>; delayMs?: number }) {
  const m = { inFlight: 0, maxInFlight: 0, calls: 0 };
  const model: ModelAdapter = scriptedModel("gate", async (turn) => {
    m.calls++;
    m.inFlight++;
    m.maxInFlight = Math.max(m.maxInFlight, m.inFlight);
    try {
      if (opts.hold) await opts.hold;
      await sleep(opts.delayMs ?? 0);
    } finally {
      m.inFlight--;
    }
    return turn === 1 ? { text: "bump", calls: [{ id: "c1", name: "bump", args: {} }] } : { text: "done" };
  });
  return { m, model };
}

describe.skipIf(!pgUrl)("takeover through the dispatch path (PostgreSQL, pg-boss)", () => {
  let t: TestDb;
  const clients: Db[] = [];
  const buses: PgLiveBus[] = [];
  const contexts: AppContext[] = [];
  beforeAll(async () => {
    t = await freshDatabase("postgresql");
  });
  afterAll(async () => {
    for (const c of contexts) await c.queue?.stop(2000);
    for (const b of buses) await b.close();
    for (const c of clients) await c.$disconnect();
    await t?.drop();
  });

  // A separate "process": its own client, live bus and (concurrency given) pg-boss queue.
  async function instance(opts: { concurrency: number; model: ModelAdapter; agent: Agent }): Promise<AppContext> {
    const db = createDb(t.url);
    const live = new PgLiveBus(t.url);
    clients.push(db);
    buses.push(live);
    await live.ready;
    const ctx = testContext(db, {
      leaseMs: 5_000,
      agents: { [opts.agent.name]: opts.agent },
      models: { gate: opts.model },
      queue: { url: t.url, concurrency: opts.concurrency },
      live,
    });
    contexts.push(ctx);
    await ctx.queue!.ready();
    await ctx.queue!.work(ctx.worker);
    return ctx;
  }

  it("a web-only instance's sweep executes none of the runs it takes over; a worker holds at most its concurrency", async () => {
    const w = world();
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    // D: executes in its own process (no queue), short lease, no heartbeat: what a SIGKILLed worker leaves.
    const dead = countingModel({ hold });
    const d = testContext(t.db, {
      leaseMs: 600,
      heartbeatMs: 3_600_000,
      agents: { [w.agent.name]: w.agent },
      models: { gate: dead.model },
    });
    const web = countingModel({});
    const busy = countingModel({ delayMs: 150 });
    const W = await instance({ concurrency: 0, model: web.model, agent: w.agent });
    const X = await instance({ concurrency: CONCURRENCY, model: busy.model, agent: w.agent });

    const ids: string[] = [];
    for (let i = 0; i < RUNS; i++) ids.push((await startRun(d, sub, { body: { agent: w.agent.name, input: {} } })).id);
    await expect.poll(() => dead.m.inFlight, { timeout: 15_000 }).toBe(RUNS);
    await sleep(900); // past D's lease

    // Who holds what, sampled until every run completed.
    const owners = new Set<string>();
    let maxHeldByX = 0;
    let maxHeldByW = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        maxHeldByX = Math.max(maxHeldByX, X.worker.activeCount());
        maxHeldByW = Math.max(maxHeldByW, W.worker.activeCount());
        for (const r of await t.db.run.findMany({ where: { id: { in: ids } }, select: { leaseOwner: true } }))
          if (r.leaseOwner) owners.add(r.leaseOwner);
        await sleep(5);
      }
    })();

    // Both sweeps at once: every expired run is re-reserved exactly once.
    const [byW, byX] = await Promise.all([W.executor.takeOverExpired(), X.executor.takeOverExpired()]);
    expect(byW + byX).toBe(RUNS);
    await expect
      .poll(async () => t.db.run.count({ where: { id: { in: ids }, state: "completed" } }), { timeout: 60_000, interval: 100 })
      .toBe(RUNS);
    sampling = false;
    await sampler;

    // W executed nothing: no model call, no run held, never a lease owner.
    expect(web.m.calls).toBe(0);
    expect(maxHeldByW).toBe(0);
    expect(owners.has(W.worker.instanceId)).toBe(false);
    // X executed all of them, never more than its concurrency at once (and it did run that many together).
    expect(owners.has(X.worker.instanceId)).toBe(true);
    expect(maxHeldByX).toBeLessThanOrEqual(CONCURRENCY);
    expect(busy.m.maxInFlight).toBe(CONCURRENCY);
    expect(busy.m.calls).toBe(RUNS * 2);
    // Each run: one execution by D (epoch 1), one after the takeover (epoch 2); its tool ran once.
    const rows = await t.db.run.findMany({ where: { id: { in: ids } }, select: { id: true, leaseEpoch: true, leaseOwner: true } });
    expect(rows.map((r) => [r.leaseEpoch, r.leaseOwner])).toEqual(ids.map(() => [2, null]));
    expect([...w.executions.values()]).toEqual(ids.map(() => 1));

    // D wakes up: every write it tries is refused (its runs were re-reserved under a new epoch).
    release();
    await d.worker.idle();
    expect(await t.db.run.count({ where: { id: { in: ids }, state: "completed" } })).toBe(RUNS);
    expect([...w.executions.values()]).toEqual(ids.map(() => 1));
  });
});
