// Search and saved views on a real database: runs and approvals found by a value of their input (an order
// id), approvals by the group they are routed to; a reviewer saves "finance queue" and its count follows
// the inbox; views are per user, named once, validated when saved and when read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { listInbox } from "@/lib/services/inbox";
import { listRuns } from "@/lib/services/run-view";
import { listSavedViews, removeView, saveView } from "@/lib/services/saved-views";
import { startRun } from "@/lib/services/start";
import type { HttpError } from "@/lib/auth/errors";
import { actor, admin, sub } from "../helpers/actors";
import { testContext } from "../helpers/context";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";

const finance = actor("reviewer", "fin", { groups: ["finance"] });
const other = actor("reviewer", "other");
const failure = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: HttpError) => ({ status: e.status, field: e.field }),
  );

describe.each(providers)("search and saved views on %s", (provider) => {
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

  it("finds runs and approvals by an input value and a group, and counts a saved view", async () => {
    const start = (order_id: string, amount_cents: number) =>
      startRun(ctx, sub, { body: { agent: "refund-desk", input: { order_id, amount_cents, reason: "Damaged in transit" } } });
    const big = await start("ORD-1001", 150000);
    const small = await start("ORD-1002", 9000);
    await ctx.worker.idle();

    const runs = await listRuns(ctx, admin, { query: { q: "ord-1001" } });
    expect(runs.runs.map((r) => r.id)).toEqual([big.id]);
    // A run id prefix still finds its run; LIKE's wildcards are text.
    expect((await listRuns(ctx, admin, { query: { q: small.id.slice(0, 8) } })).runs.map((r) => r.id)).toEqual([small.id]);
    expect((await listRuns(ctx, admin, { query: { q: "%" } })).runs).toEqual([]);

    const byOrder = await listInbox(ctx, finance, { query: { q: "ORD-1002" } });
    expect([...new Set(byOrder.approvals.map((a) => a.runId))]).toEqual([small.id]);
    const byBigOrder = await listInbox(ctx, finance, { query: { q: "ORD-1001" } });
    expect(byBigOrder.approvals.map((a) => a.tool).sort()).toEqual(["issue_refund", "notify_customer"]);
    const financeQueue = await listInbox(ctx, finance, { query: { group: "finance" } });
    expect(financeQueue.approvals.map((a) => [a.runId, a.tool])).toEqual([[big.id, "issue_refund"]]);

    const view = await saveView(ctx, finance, {
      body: { name: "finance queue", scope: "approvals", filters: { group: "finance", q: "" } },
    });
    expect(view).toMatchObject({ href: "/approvals?group=finance", count: 1, more: false, filters: { group: "finance" } });
    await saveView(ctx, finance, { body: { name: "refund runs", scope: "runs", filters: { agent: "refund-desk", state: "paused" } } });
    expect((await listSavedViews(ctx, finance)).views.map((v) => [v.name, v.count])).toEqual([
      ["finance queue", 1],
      ["refund runs", 2],
    ]);
    // Views are per user: another reviewer has none, and cannot delete this one.
    expect((await listSavedViews(ctx, other)).views).toEqual([]);
    expect(await failure(removeView(ctx, other, { viewId: view.id }))).toMatchObject({ status: 404 });

    expect(await failure(saveView(ctx, finance, { body: { name: "finance queue", scope: "approvals", filters: {} } }))).toMatchObject({
      status: 409,
    });
    expect(await failure(saveView(ctx, finance, { body: { name: "x", scope: "runs", filters: { state: "nope" } } }))).toMatchObject({
      status: 400,
      field: "filters.state",
    });
    expect(await failure(saveView(ctx, finance, { body: { name: "", scope: "runs" } }))).toMatchObject({ status: 400, field: "name" });
    // A submitter does not open the inbox: no approvals view.
    expect(await failure(saveView(ctx, sub, { body: { name: "mine", scope: "approvals" } }))).toMatchObject({
      status: 400,
      field: "scope",
    });

    // Deciding the big refund leaves the finance queue empty.
    const [a] = financeQueue.approvals;
    await decide(ctx, finance, { approvalId: a.id, body: { decision: "approve", argsHash: a.argsHash } });
    expect((await listSavedViews(ctx, finance)).views.find((v) => v.name === "finance queue")?.count).toBe(0);

    expect(await removeView(ctx, finance, { viewId: view.id })).toEqual({ id: view.id, deleted: true });
    expect((await listSavedViews(ctx, finance)).views.map((v) => v.name)).toEqual(["refund runs"]);
  });
});
