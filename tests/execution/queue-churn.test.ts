// The queue on PostgreSQL (real pg-boss), with several "processes" in one test process, each its own
// database client, live bus, queue and instance id, and each sweeping for expired leases as the background
// sweep does:
//  - nothing killed, runs waiting in the queue longer than the lease: nothing is taken over, one job a run
//    (a reservation waiting for its job is held by the queue, not by a process whose lease expired);
//  - a worker that died: its runs are taken over ahead of the runs already waiting, and its pg-boss jobs are
//    released then (not left active until pg-boss expires them).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { testContext } from "../helpers/context";
import { freshDatabase, type TestDb } from "../helpers/databases";
import { scriptedModel } from "../helpers/scripted-model";
import type { AppContext } from "@/lib/context";
import { createDb, type Db } from "@/lib/db/client";
import { RUN_QUEUE } from "@/lib/execution/queue";
import { PgLiveBus } from "@/lib/live/bus";
import { type Agent, defineTool, type ModelAdapter } from "@/lib/runner";
import { startRun } from "@/lib/services/start";
import { sub } from "../helpers/actors";

const pgUrl = process.env.TEST_POSTGRES_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// One tool call, then done. The tool records the order in which runs reach it (one execution at a time
// on a worker of concurrency 1: the order the runs were claimed in).
function world() {
  const order: string[] = [];
  const bump = defineTool({
    name: "bump",
    description: "count one execution",
    schema: z.object({}),
    async execute(_a, ctx) {
      order.push(ctx.runId);
      return { ok: true };
    },
  });
  const agent: Agent = {
    name: "churn-test",
    model: "gate:x",
    instructions: "",
    tools: [bump],
    inputSchema: z.object({}),
    toUserMessage: () => "go",
  };
  return { order, agent };
}

const model = (opts: { hold?: Promise<void>; delayMs?: number }): ModelAdapter =>
  scriptedModel("gate", async (turn) => {
    if (opts.hold) await opts.hold;
    await sleep(opts.delayMs ?? 0);
    return turn === 1 ? { text: "bump", calls: [{ id: "c1", name: "bump", args: {} }] } : { text: "done" };
  });

describe.skipIf(!pgUrl)("the run queue under a backlog (PostgreSQL, pg-boss)", () => {
  let t: TestDb;
  const clients: Db[] = [];
  const buses: PgLiveBus[] = [];
  const contexts: AppContext[] = [];
  const sweepers: { stop: boolean; done: Promise<void> }[] = [];
  beforeAll(async () => {
    t = await freshDatabase("postgresql");
  });
  afterAll(async () => {
    for (const s of sweepers) s.stop = true;
    await Promise.all(sweepers.map((s) => s.done));
    for (const c of contexts) await c.queue?.stop(2000);
    for (const b of buses) await b.close();
    for (const c of clients) await c.$disconnect();
    await t?.drop();
  });

  async function instance(opts: {
    concurrency: number;
    model: ModelAdapter;
    agent: Agent;
    leaseMs: number;
    heartbeatMs?: number;
    idle?: boolean;
  }) {
    const db = createDb(t.url);
    const live = new PgLiveBus(t.url);
    clients.push(db);
    buses.push(live);
    await live.ready;
    const ctx = testContext(db, {
      leaseMs: opts.leaseMs,
      heartbeatMs: opts.heartbeatMs,
      agents: { [opts.agent.name]: opts.agent },
      models: { gate: opts.model },
      queue: { url: t.url, concurrency: opts.concurrency },
      live,
    });
    contexts.push(ctx);
    await ctx.queue!.ready();
    if (!opts.idle) await ctx.queue!.work(ctx.worker);
    return ctx;
  }

  // The background sweep's takeover, every intervalMs; counts what it took over.
  function sweeping(ctx: AppContext, intervalMs: number) {
    const s = { stop: false, taken: 0, done: Promise.resolve() };
    s.done = (async () => {
      while (!s.stop) {
        s.taken += await ctx.executor.takeOverExpired();
        await sleep(intervalMs);
      }
    })();
    sweepers.push(s);
    return s;
  }

  const jobsOf = async (ids: string[]) =>
    (await t.db.$queryRawUnsafe(
      `SELECT id::text AS id, data->>'runId' AS "runId", state::text AS state FROM pgboss.job WHERE name = $1 AND data->>'runId' = ANY($2::text[])`,
      RUN_QUEUE,
      ids,
    )) as { id: string; runId: string; state: string }[];

  it("nothing killed: runs waiting longer than the lease are not taken over; one job a run", async () => {
    const w = world();
    // The shortest lease AFK_LEASE_S allows. A web-only instance and two workers of concurrency 2: 20 runs
    // of two model calls of 0.5 s each wait up to ~4 s in the queue.
    const LEASE = 2000;
    // The workers' own claims renew a longer lease: a heartbeat late on a loaded machine is not what this
    // test is about (the reservations W makes expire after LEASE all the same).
    const CLAIM_LEASE = 10_000;
    const W = await instance({ concurrency: 0, model: model({}), agent: w.agent, leaseMs: LEASE });
    const X = await instance({ concurrency: 2, model: model({ delayMs: 500 }), agent: w.agent, leaseMs: CLAIM_LEASE, idle: true });
    const Y = await instance({ concurrency: 2, model: model({ delayMs: 500 }), agent: w.agent, leaseMs: CLAIM_LEASE, idle: true });
    const sweeps = [W, X, Y].map((c) => sweeping(c, 200));
    const ids: string[] = [];
    try {
      // Queued five at a time.
      for (let i = 0; i < 4; i++)
        for (const r of await Promise.all(Array.from({ length: 5 }, () => startRun(W, sub, { body: { agent: w.agent.name, input: {} } }))))
          ids.push(r.id);
      // The workers start once all 20 wait: the last of them wait about 4 s, twice the lease.
      await Promise.all([X, Y].map((c) => c.queue!.work(c.worker)));
      await expect
        .poll(async () => t.db.run.count({ where: { id: { in: ids }, state: "completed" } }), { timeout: 60_000, interval: 100 })
        .toBe(20);
    } finally {
      // This test's instances take no part in the next one.
      for (const s of sweeps) s.stop = true;
      await Promise.all(sweeps.map((s) => s.done));
      for (const c of [W, X, Y]) {
        await c.queue!.stop(2000);
        contexts.splice(contexts.indexOf(c), 1);
      }
    }
    const taken = sweeps.reduce((n, s) => n + s.taken, 0);
    const jobs = await jobsOf(ids);
    expect({ taken, jobs: jobs.length }).toEqual({ taken: 0, jobs: 20 });
    // Every run executed under its one reservation, its tool once.
    const rows = await t.db.run.findMany({ where: { id: { in: ids } }, select: { leaseEpoch: true } });
    expect(rows.map((r) => r.leaseEpoch)).toEqual(ids.map(() => 1));
    expect(w.order.slice().sort()).toEqual(ids.slice().sort());
  });

  it("a dead worker's runs go ahead of the waiting ones, and its jobs are released when they are taken over", async () => {
    const w = world();
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    // D claims two runs, then hangs with a lease of 600 ms that it never renews: a SIGKILLed worker.
    const D = await instance({ concurrency: 2, model: model({ hold }), agent: w.agent, leaseMs: 600, heartbeatMs: 3_600_000 });
    const dead = [0, 1].map(() => "");
    for (let i = 0; i < 2; i++) dead[i] = (await startRun(D, sub, { body: { agent: w.agent.name, input: {} } })).id;
    await expect.poll(async () => D.worker.activeCount(), { timeout: 15_000 }).toBe(2);
    const deadJobs = await jobsOf(dead);
    expect(deadJobs.map((j) => j.state)).toEqual(["active", "active"]);
    // X: a worker of concurrency 1 with a backlog of 8 runs queued before D's runs are taken over.
    const X = await instance({ concurrency: 1, model: model({ delayMs: 150 }), agent: w.agent, leaseMs: 10_000 });
    const waiting: string[] = [];
    for (let i = 0; i < 8; i++) waiting.push((await startRun(X, sub, { body: { agent: w.agent.name, input: {} } })).id);
    await expect.poll(() => w.order.length, { timeout: 15_000, interval: 20 }).toBeGreaterThan(0);
    await sleep(700); // past D's lease
    expect(await X.executor.takeOverExpired()).toBe(2);
    const before = w.order.length;
    // Released at the takeover: D's jobs are not active any more.
    const now = new Map((await jobsOf(dead)).map((j) => [j.id, j.state]));
    expect(deadJobs.map((j) => now.get(j.id))).toEqual(["cancelled", "cancelled"]);
    await expect
      .poll(async () => t.db.run.count({ where: { id: { in: [...dead, ...waiting] }, state: "completed" } }), {
        timeout: 60_000,
        interval: 100,
      })
      .toBe(10);
    // The next runs X reached after the takeover: the one it was executing then, and D's two.
    expect(w.order.slice(before, before + 3)).toEqual(expect.arrayContaining(dead));
    release();
    await D.worker.idle();
    expect(await t.db.run.count({ where: { id: { in: [...dead, ...waiting] }, state: "completed" } })).toBe(10);
    expect(w.order.filter((id) => dead.includes(id)).length).toBe(2);
  });
});
