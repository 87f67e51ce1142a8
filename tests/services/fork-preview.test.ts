// Forking names what will run again: a fork shares no effects with its source, so a refund that ran after
// the fork point in the original runs again in the fork. The preview lists it, formatted from the tool's
// schema, and nothing from before the fork point; the forked run's inbox row links to its origin.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { forkPreview } from "@/lib/services/fork-preview";
import { listInbox } from "@/lib/services/inbox";
import { forkRun } from "@/lib/services/operate";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { timelinePage } from "@/lib/services/timeline";
import type { HttpError } from "@/lib/auth/errors";
import { admin, op, rev, sub } from "../helpers/actors";
import { testContext } from "../helpers/context";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";

describe.each(providers)("fork preview on %s", (provider) => {
  let t: TestDb;
  let ctx: AppContext;
  beforeAll(async () => {
    t = await freshDatabase(provider);
    ctx = testContext(t.db);
  });
  afterAll(async () => {
    await ctx?.worker.idle();
    await t?.drop();
  });

  it("lists the refund that already ran after the fork point, and the fork links to its origin", async () => {
    const { id } = await startRun(ctx, sub, {
      body: { agent: "refund-desk", input: { order_id: "ORD-1001", amount_cents: 150000, reason: "Damaged in transit" } },
    });
    await ctx.worker.idle();
    for (;;) {
      const view = await getRunView(ctx, admin, { runId: id });
      const pending = view.approvals.filter((a) => a.status === "pending");
      if (!pending.length) break;
      for (const a of pending) await decide(ctx, admin, { approvalId: a.id, body: { decision: "approve", argsHash: a.argsHash } });
      await ctx.worker.idle();
    }
    expect((await getRunView(ctx, admin, { runId: id })).run.state).toBe("completed");
    const cps = (await timelinePage({ db: t.db }, op, { runId: id, query: { take: 500 } })).checkpoints;

    const fromStart = await forkPreview(ctx, op, { runId: id, query: { seq: String(cps[0].seq) } });
    const refund = fromStart.repeats.find((r) => r.tool === "issue_refund");
    expect(refund?.summary).toContain("€1,500.00");
    expect(fromStart.repeats.map((r) => r.tool)).toEqual(expect.arrayContaining(["lookup_order", "issue_refund", "notify_customer"]));

    // From the last checkpoint nothing runs again.
    const fromEnd = await forkPreview(ctx, op, { runId: id, query: { seq: String(cps[cps.length - 1].seq) } });
    expect(fromEnd.repeats).toEqual([]);

    // Reviewers do not fork; a missing checkpoint is named.
    expect(await forkPreview(ctx, rev, { runId: id, query: { seq: "0" } }).catch((e: HttpError) => e.status)).toBe(403);
    expect(await forkPreview(ctx, op, { runId: id, query: { seq: "99999" } }).catch((e: HttpError) => e.status)).toBe(409);
    expect(await forkPreview(ctx, op, { runId: id, query: { seq: "x" } }).catch((e: HttpError) => e.status)).toBe(400);

    const fork = await forkRun(ctx, op, { runId: id, body: { seq: cps[0].seq } });
    await ctx.worker.idle();
    const row = (await listInbox(ctx, admin, { query: {} })).approvals.find((a) => a.runId === fork.id);
    expect(row?.forkedFrom).toBe(id);
  });
});
