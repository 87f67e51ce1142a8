import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "./helpers/databases";
import { createRuntime } from "@/lib/runtime";
import { listCheckpoints } from "@/lib/runner";
import { checkpointTimeline, listRunRows, pendingApprovals } from "@/lib/runs/queries";

describe.each(providers)("console queries on %s", (provider) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(() => t?.drop());

  it("lists pending approvals oldest first, filtered by agent and tool, and pages a timeline by cursor", async () => {
    const rt = createRuntime(t.db);
    await rt.runner.run(rt.agent("refund-desk"), {
      userMessage: JSON.stringify({ order_id: "ORD-100", amount_cents: 9000, reason: "x" }),
      runId: "q1",
    });
    await rt.runner.run(rt.agent("deploy-bot"), {
      userMessage: JSON.stringify({ service: "web", version: "1.0.0", environment: "production" }),
      runId: "q2",
    });
    const { approvals: all } = await pendingApprovals(t.db);
    // Oldest first; the two approvals of q1's step may share a millisecond, so their mutual order is free.
    expect(all.map((a) => a.id).sort()).toEqual(["q1:2:call_notify", "q1:2:call_refund", "q2:2:call_deploy"]);
    expect(all.map((a) => a.requested_at_ms)).toEqual(all.map((a) => a.requested_at_ms).sort((x, y) => x - y));
    expect(all.at(-1)?.id).toBe("q2:2:call_deploy");
    expect((await pendingApprovals(t.db, { agent: "deploy-bot" })).approvals.map((a) => a.id)).toEqual(["q2:2:call_deploy"]);
    expect((await pendingApprovals(t.db, { tool: "notify_customer" })).approvals.map((a) => a.id)).toEqual(["q1:2:call_notify"]);

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
    for (const state of [undefined, "failed"]) {
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
  });
});
