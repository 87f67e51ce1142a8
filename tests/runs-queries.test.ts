import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "./helpers/databases";
import { createRuntime } from "@/lib/runtime";
import { listCheckpoints } from "@/lib/runner";
import { checkpointTimeline, pendingApprovals } from "@/lib/runs/queries";

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
});
