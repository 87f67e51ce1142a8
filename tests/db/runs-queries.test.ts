import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putApprovalCopies } from "../helpers/approvals";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { createRuntime } from "@/lib/runtime";
import { checkpointLatestKey, keys, listCheckpoints } from "@/lib/runner";
import { PrismaStore } from "@/lib/db/store";
import { checkpointBySeq, checkpointsBySeq, checkpointTimeline, countCheckpoints } from "@/lib/db/read-models";
import { type PendingFilter, pendingApprovals, pendingPageEnd, pendingSummary, readPending } from "@/lib/db/approvals";
import { getRunRow, listRunRows, runCounts, updateRunProgress } from "@/lib/db/runs";
import { queryRows } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/sqlite/client";

const read = async (db: TestDb["db"], f: PendingFilter & { take?: number } = {}) => readPending((await pendingApprovals(db, f)).rows);

describe.each(providers)("console queries on %s", (provider) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(() => t?.drop());

  it("lists pending approvals oldest first, filtered by agent and tool, and pages a timeline by cursor", async () => {
    const rt = createRuntime(t.db);
    await rt.runner.run(rt.agent("refund-desk"), {
      userMessage: JSON.stringify({ order_id: "ORD-100", amount_cents: 200_000, reason: "x" }),
      runId: "q1",
    });
    await rt.runner.run(rt.agent("deploy-bot"), {
      userMessage: JSON.stringify({ service: "web", version: "1.0.0", environment: "production" }),
      runId: "q2",
    });
    const { approvals: all } = await read(t.db);
    // Oldest first; the two approvals of q1's step may share a millisecond, so their mutual order is free.
    expect(all.map((a) => a.id).sort()).toEqual(["q1:2:call_notify", "q1:2:call_refund", "q2:2:call_deploy"]);
    expect(all.map((a) => a.requested_at_ms)).toEqual(all.map((a) => a.requested_at_ms).sort((x, y) => x - y));
    expect(all.at(-1)?.id).toBe("q2:2:call_deploy");
    expect((await read(t.db, { agent: "deploy-bot" })).approvals.map((a) => a.id)).toEqual(["q2:2:call_deploy"]);
    expect((await read(t.db, { tool: "notify_customer" })).approvals.map((a) => a.id)).toEqual(["q1:2:call_notify"]);
    expect((await read(t.db, { rootRunId: "q1" })).approvals.map((a) => a.id).sort()).toEqual(["q1:2:call_notify", "q1:2:call_refund"]);
    expect((await pendingSummary(t.db)).count).toBe(3);
    expect((await pendingSummary(t.db, { agent: "refund-desk" })).count).toBe(2);
    // Routing: refund-desk's refund is routed to finance; an unrouted request is anyone's.
    const routed = (await read(t.db)).approvals.filter((a) => a.groups.length).map((a) => a.id);
    const groups = [...new Set((await read(t.db)).approvals.flatMap((a) => a.groups))];
    const unrouted = (await read(t.db)).approvals.filter((a) => !a.groups.length).map((a) => a.id);
    expect(routed).toEqual(["q1:2:call_refund"]);
    expect((await read(t.db, { decidableBy: [] })).approvals.map((a) => a.id)).toEqual(unrouted);
    expect((await read(t.db, { decidableBy: ["ops"] })).approvals.map((a) => a.id)).toEqual(unrouted);
    expect((await read(t.db, { decidableBy: groups })).approvals.map((a) => a.id).sort()).toEqual([...routed, ...unrouted].sort());

    // A record whose text cannot be read is set aside, named by its key, with its run.
    const [row] = (await pendingApprovals(t.db, { take: 1 })).rows;
    expect(readPending([{ ...row, text: "{oops" }])).toMatchObject({
      approvals: [],
      corrupt: [{ key: expect.stringMatching(/^approval:q1:000002:call_/), runId: "q1" }],
    });

    const full = await listCheckpoints(rt.store, "q1", "q1");
    const seen = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await checkpointTimeline(t.db, "q1", "q1", { cursor, take: 4 });
      seen.push(...page.checkpoints);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(full);
  });

  it("pages runs newest first by keyset, ties on createdAt included, with and without filters", async () => {
    const base = Date.UTC(2026, 0, 1);
    // 23 runs over 9 distinct instants (ties), two states.
    const runs = Array.from({ length: 23 }, (_, i) => ({
      id: `page-${String((i * 7) % 23).padStart(2, "0")}`,
      threadId: `page-${i}`,
      agentName: "deploy-bot",
      input: "{}",
      state: i % 3 ? "completed" : "failed",
      createdAt: new Date(base + Math.floor(i / 3) * 1000),
    }));
    await t.db.run.createMany({ data: runs });
    const expected = (state?: string) =>
      runs
        .filter((r) => !state || r.state === state)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
        .map((r) => r.id);
    for (const state of [undefined, "failed"] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 30; i++) {
        const page = await listRunRows(t.db, { state, q: "page-", take: 4, cursor });
        seen.push(...page.runs.map((r) => r.id));
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      expect(seen).toEqual(expected(state));
    }
    expect(await listRunRows(t.db, { cursor: "no-such-run" })).toEqual({ runs: [], nextCursor: null });
    // A date range binds alike through the driver and through Prisma (a transaction client), in any zone.
    const tz = process.env.TZ;
    process.env.TZ = "Asia/Tokyo";
    try {
      const from = new Date(base + 2000);
      const to = new Date(base + 5000);
      const want = expected().filter((id) => {
        const r = runs.find((x) => x.id === id)!;
        return r.createdAt >= from && r.createdAt <= to;
      });
      expect(want).toHaveLength(12);
      const f = { q: "page-", from, to, take: 200 };
      expect((await listRunRows(t.db, f)).runs.map((r) => r.id)).toEqual(want);
      expect((await t.db.$transaction((tx) => listRunRows(tx as typeof t.db, f))).runs.map((r) => r.id)).toEqual(want);
      // Rows come back as Prisma gives them, with whether each is ready to resume (none of these, ended).
      const [first] = (await listRunRows(t.db, { q: want[0], take: 1 })).runs;
      expect(first).toEqual({ ...(await t.db.run.findUnique({ where: { id: want[0] } })), ready: false });
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it("finds a checkpoint by seq among its run's keys only, a retry's higher seq at an earlier step included", async () => {
    const store = new PrismaStore(t.db);
    const put = (runId: string, step: number, seq: number, phase: string) =>
      store.putState("s-thread", keys.checkpoint(runId, step, seq, phase), {
        schema_version: "v1",
        run_id: runId,
        thread_id: "s-thread",
        step,
        phase,
        timestamp_ms: 1_000 + seq,
        seq,
        payload: { tag: `${runId}/${seq}` },
      });
    const phases = ["step_started", "pre_llm", "post_llm", "pre_tool_batch", "post_tool_batch"];
    for (let seq = 0; seq < 15; seq++) await put("s1", Math.floor(seq / 5), seq, phases[seq % 5]);
    await put("s1", 1, 15, "step_started"); // a retry: back to step 1 under a higher seq
    await put("s1", 3, 10_000, "pre_llm"); // seqs past four digits
    // Same thread, other runs whose keys share the prefix's beginning: a subagent and a longer id.
    for (const other of ["s1.1", "s10"]) for (const seq of [3, 7, 15]) await put(other, 1, seq, "pre_llm");
    await store.putState("s-thread", checkpointLatestKey("s1"), { seq: 10_000 });

    for (const seq of [0, 3, 7, 14, 15, 10_000]) {
      const cp = await checkpointBySeq(t.db, "s-thread", "s1", seq);
      expect(cp?.payload).toEqual({ tag: `s1/${seq}` });
    }
    expect(await checkpointBySeq(t.db, "s-thread", "s1", 16)).toBeNull();
    expect(await checkpointBySeq(t.db, "s-thread", "s1", 1_000)).toBeNull();
    const both = await checkpointsBySeq(t.db, "s-thread", "s1", [15, 10_000, 16]);
    expect([...both.keys()].sort((x, y) => x - y)).toEqual([15, 10_000]);
    // A transaction client has no driver: the same statement goes through Prisma inside the transaction.
    expect((await t.db.$transaction((tx) => checkpointBySeq(tx as typeof t.db, "s-thread", "s1", 15)))?.step).toBe(1);

    const page = await checkpointTimeline(t.db, "s-thread", "s1", { take: 500 });
    expect(page.checkpoints.map((c) => c.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 10, 11, 12, 13, 14, 10_000]);
    expect(page.checkpoints.every((c) => c.run_id === "s1")).toBe(true);
    expect(await countCheckpoints(t.db, "s-thread", "s1")).toBe(17);
  });

  it("counts runs by state for the health check", async () => {
    const before = await runCounts(t.db);
    await t.db.run.createMany({
      data: ["paused", "paused", "running", "pending", "completed"].map((state, i) => ({
        id: `count-${i}`,
        threadId: `count-${i}`,
        agentName: "deploy-bot",
        input: "{}",
        state,
      })),
    });
    const after = await runCounts(t.db);
    const grew = (s: "paused" | "running" | "pending" | "completed") => (after[s] ?? 0) - (before[s] ?? 0);
    expect([grew("paused"), grew("running"), grew("pending"), grew("completed")]).toEqual([2, 1, 1, 0]);
  });

  it("reads a run row through the driver exactly as Prisma does, in any time zone", async () => {
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 2, 3, 4, 5, ms));
    await t.db.run.create({
      data: {
        id: "row-full",
        threadId: "row-full",
        agentName: "deploy-bot",
        state: "failed",
        step: 7,
        phase: "run_terminal",
        input: '{"a":1}',
        submittedById: "u1",
        submittedByEmail: "u1@example.com",
        model: "demo",
        totalTokens: 1234,
        costUsd: 0.0125,
        forkedFromRunId: "src",
        forkedFromSeq: 42,
        leaseOwner: "vm:1",
        leaseUntilMs: BigInt(Date.UTC(2026, 0, 2, 3, 5)), // epoch ms: the SQLite driver reads integers as numbers
        cancelRequested: true,
        leaseEpoch: 3,
        corruptKey: "checkpoint:row-full:latest",
        idempotencyKey: "u1:k",
        prunedAt: at(1),
        prunedCheckpoints: 9,
        error: "boom",
        createdAt: at(2),
        finishedAt: at(3),
      },
    });
    await t.db.run.create({ data: { id: "row-bare", threadId: "row-bare", agentName: "deploy-bot", state: "pending", input: "{}" } });
    const tz = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      for (const id of ["row-full", "row-bare"]) expect(await getRunRow(t.db, id)).toEqual(await t.db.run.findUnique({ where: { id } }));
      expect((await getRunRow(t.db, "row-full"))?.createdAt.toISOString()).toBe("2026-01-02T03:04:05.002Z");
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
    expect(await getRunRow(t.db, "no-such-run")).toBeNull();
  });

  it("writes a run's progress through the driver as through Prisma: under the claim's epoch, updatedAt stored alike", async () => {
    const viaPrisma = new Proxy(t.db, {}); // no driver: the statement goes through Prisma's raw query
    for (const id of ["progress-driver", "progress-prisma"])
      await t.db.run.create({ data: { id, threadId: id, agentName: "x", state: "running", input: "{}", leaseEpoch: 2 } });
    const t0 = Date.now();
    expect(await updateRunProgress(t.db, "progress-driver", 1, { step: 9, phase: "pre_llm" })).toBe(0); // a stale claim
    expect(await updateRunProgress(t.db, "progress-driver", 2, { step: 4, phase: "post_llm" })).toBe(1);
    expect(await updateRunProgress(viaPrisma, "progress-prisma", 2, { step: 4, phase: "post_llm" })).toBe(1);
    const [a, b] = await Promise.all(["progress-driver", "progress-prisma"].map((id) => t.db.run.findUnique({ where: { id } })));
    expect([a?.step, a?.phase]).toEqual([4, "post_llm"]);
    expect([b?.step, b?.phase]).toEqual([4, "post_llm"]);
    for (const r of [a, b]) expect(Math.abs(r!.updatedAt.getTime() - t0)).toBeLessThan(60_000);
    // The stored form of the timestamp is the same on both paths (SQLite keeps it as text).
    const stored = await queryRows(
      t.db,
      Prisma.sql`SELECT "id", CAST("updatedAt" AS TEXT) AS "at" FROM "Run" WHERE "id" LIKE 'progress-%' ORDER BY "id"`,
    );
    // Without the fraction: PostgreSQL's text of a timestamp drops its trailing zeros (all of it at .000).
    const shape = (v: unknown) => String(v).replace(/\.\d+/, "").replace(/\d/g, "9");
    expect(shape(stored[0].at)).toBe(shape(stored[1].at));
  });
});

describe.each(providers)("the one reader of pending approvals on %s", (provider) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(() => t?.drop());

  it("reads past a long list: the sweep's list, a long page and the count agree", async () => {
    const rt = createRuntime(t.db);
    await rt.runner.run(rt.agent("deploy-bot"), {
      userMessage: JSON.stringify({ service: "web", version: "1.0.0", environment: "production" }),
      runId: "one",
    });
    const [row] = (await pendingApprovals(t.db, { take: 1 })).rows;
    const rec = JSON.parse(row.text);
    // 1,200 more pending approvals, some sharing a millisecond.
    const n = 1200;
    await putApprovalCopies(t.db, rec, n, (k) => ({ runId: `bulk${k}`, requested_at_ms: rec.requested_at_ms + Math.floor(k / 3) }));
    expect((await pendingSummary(t.db)).count).toBe(n + 1);
    const sweep = await read(t.db, { take: 5000 });
    expect(sweep.corrupt).toEqual([]);
    expect(new Set(sweep.approvals.map((a) => a.id)).size).toBe(n + 1);
    expect(sweep.approvals.map((a) => a.requested_at_ms)).toEqual(sweep.approvals.map((a) => a.requested_at_ms).sort((x, y) => x - y));
    const page = await pendingApprovals(t.db, { take: 1500 });
    expect(readPending(page.rows).approvals.map((a) => a.id)).toEqual(sweep.approvals.map((a) => a.id));
    expect(page.next).toBeNull();
    // A page of 1,100 of them says where the next one starts, and that one holds the rest.
    const first = await pendingApprovals(t.db, { take: 1100 });
    expect(first.rows).toHaveLength(1100);
    const rest = await pendingApprovals(t.db, { take: 1100, after: first.next });
    expect([...first.rows, ...rest.rows].map((a) => a.id)).toEqual(sweep.approvals.map((a) => a.id));
    expect(rest.next).toBeNull();
    // Where a page ends, without reading its records: the same count and cursor as reading it.
    expect(await pendingPageEnd(t.db, 1100)).toEqual({ rows: 1100, next: first.next });
    for (const take of [1, 2, 200, n, n + 1, 1500]) {
      const p = await pendingApprovals(t.db, { take });
      expect(await pendingPageEnd(t.db, take)).toEqual({ rows: p.rows.length, next: p.next });
    }
  });
});
