// A worker that stalls past its lease (a long GC pause, SIGSTOP, cut off from the database) must write
// nothing once another worker has taken the run over, and must not run another tool. Two executors on one
// real database (each its own Prisma client, as two processes would have); the first one's model call is
// held past its lease and its heartbeat never runs, exactly what a stopped process looks like to the rest.
// The tool counts its executions itself and does not de-duplicate: the guarantee must come from the runner.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { scriptedModel } from "../helpers/scripted-model";
import { createDb, type Db } from "@/lib/db/client";
import { testContext } from "../helpers/context";
import { startRun } from "@/lib/services/start";
import { type Agent, checkpointLatestKey, defineTool, listCheckpoints, normalizeCheckpointRecord } from "@/lib/runner";
import { sub } from "../helpers/actors";

function world() {
  const executions = new Map<string, number>();
  const bump = defineTool({
    name: "bump",
    description: "count one execution (no idempotency check, on purpose)",
    schema: z.object({ n: z.number() }),
    async execute(_a, ctx) {
      executions.set(ctx.toolCallId, (executions.get(ctx.toolCallId) ?? 0) + 1);
      return { ok: true };
    },
  });
  const agent: Agent = {
    name: "stall-test",
    model: "gate:two-bumps",
    instructions: "",
    tools: [bump],
    inputSchema: z.object({}),
    toUserMessage: () => "go",
  };
  // Turn 1: bump c1; turn 2: bump c2; turn 3: done. `hold` makes turn 2 wait until released.
  const model = (hold: Promise<void> | null) =>
    scriptedModel("gate", async (turn) => {
      if (turn === 2 && hold) await hold;
      return { text: turn < 3 ? `bump ${turn}` : "done", calls: turn < 3 ? [{ id: `c${turn}`, name: "bump", args: { n: turn } }] : [] };
    });
  return { executions, agent, model };
}

describe.each(providers)("fencing on %s", (provider) => {
  let t: TestDb;
  let db2: Db;
  beforeAll(async () => {
    t = await freshDatabase(provider);
    db2 = createDb(t.url);
  });
  afterAll(async () => {
    await db2?.$disconnect();
    await t?.drop();
  });

  it("a worker stalled past its lease writes nothing after the takeover and runs no further tool", async () => {
    const w = world();
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    // A: lease 600 ms, heartbeat never (it is "stopped"). B: a healthy worker.
    const a = testContext(t.db, {
      leaseMs: 600,
      heartbeatMs: 3_600_000,
      agents: { "stall-test": w.agent },
      models: { gate: w.model(hold) },
    });
    const b = testContext(db2, { leaseMs: 5_000, agents: { "stall-test": w.agent }, models: { gate: w.model(null) } });
    const { id } = await startRun(a, sub, { body: { agent: "stall-test", input: {} } });
    // A ran c1 and now waits in its second model call.
    await expect.poll(() => w.executions.get("c1") ?? 0, { timeout: 10_000 }).toBe(1);
    await new Promise((r) => setTimeout(r, 900)); // past A's lease
    expect(await b.executor.takeOverExpired()).toBe(1);
    await b.worker.idle();
    const row = await db2.run.findUniqueOrThrow({ where: { id } });
    expect(row.state).toBe("completed");
    expect(row.leaseEpoch).toBe(2);
    const before = await listCheckpoints(b.store, id, id);
    const latestBefore = await t.db.stateEntry.findUniqueOrThrow({
      where: { threadId_key: { threadId: id, key: checkpointLatestKey(id) } },
    });

    // A wakes up: its model answer arrives, and every write it tries is refused by the fence.
    release();
    await a.worker.idle();
    const after = await listCheckpoints(b.store, id, id);
    expect(after.map((c) => c.seq)).toEqual(before.map((c) => c.seq));
    const latestAfter = await t.db.stateEntry.findUniqueOrThrow({
      where: { threadId_key: { threadId: id, key: checkpointLatestKey(id) } },
    });
    expect(latestAfter.value).toBe(latestBefore.value);
    expect(latestAfter.phase).toBe("run_terminal");
    expect(normalizeCheckpointRecord(JSON.parse(latestAfter.value), latestAfter.key).payload.state).toBe("completed");
    // The run row is B's outcome, untouched by A.
    const final = await t.db.run.findUniqueOrThrow({ where: { id } });
    expect([final.state, final.error, final.leaseEpoch]).toEqual(["completed", null, 2]);
    // Each call executed exactly once although the tool does nothing to protect itself.
    expect(Object.fromEntries(w.executions)).toEqual({ c1: 1, c2: 1 });
    // No seq was written twice (two writers at once would).
    expect(new Set(after.map((c) => c.seq)).size).toBe(after.length);
  });

  it("a run taken over mid-step by a second worker ends once, with every effect once", async () => {
    const w = world();
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const a = testContext(t.db, {
      leaseMs: 600,
      heartbeatMs: 3_600_000,
      agents: { "stall-test": w.agent },
      models: { gate: w.model(hold) },
    });
    const b = testContext(db2, {
      leaseMs: 600,
      heartbeatMs: 3_600_000,
      agents: { "stall-test": w.agent },
      models: { gate: w.model(hold) },
    });
    const c = testContext(t.db, { leaseMs: 5_000, agents: { "stall-test": w.agent }, models: { gate: w.model(null) } });
    const { id } = await startRun(a, sub, { body: { agent: "stall-test", input: {} } });
    await expect.poll(() => w.executions.get("c1") ?? 0, { timeout: 10_000 }).toBe(1);
    // Two stalls in a row: A, then B after it took over; C finishes.
    await new Promise((r) => setTimeout(r, 900));
    expect(await b.executor.takeOverExpired()).toBe(1);
    await new Promise((r) => setTimeout(r, 900));
    expect(await c.executor.takeOverExpired()).toBe(1);
    await c.worker.idle();
    release();
    await Promise.all([a.worker.idle(), b.worker.idle()]);
    const row = await t.db.run.findUniqueOrThrow({ where: { id } });
    expect([row.state, row.leaseEpoch]).toEqual(["completed", 3]);
    expect(Object.fromEntries(w.executions)).toEqual({ c1: 1, c2: 1 });
    const cps = await listCheckpoints(c.store, id, id);
    expect(cps.filter((x) => x.phase === "run_terminal")).toHaveLength(1);
    expect(new Set(cps.map((x) => x.seq)).size).toBe(cps.length);
  });
});
