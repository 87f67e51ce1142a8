// The calls of one step wait in the inbox in the model's order, even when they were requested in the same
// millisecond (the runner makes a step's requests well within one): the refund, then the message that
// announces it — not sorted by call id, which put the message first.
import { afterEach, describe, expect, it, vi } from "vitest";
import { listInbox } from "@/lib/services/inbox";
import { startRun } from "@/lib/services/start";
import { databaseWithContext, providers } from "../helpers/databases";
import { admin, sub } from "../helpers/actors";

describe.each(providers)("inbox order on %s", (provider) => {
  const h = databaseWithContext(provider);
  afterEach(() => vi.useRealTimers());

  it("lists a step's requests in the order of its calls when they share a millisecond", async () => {
    // The clock stands still (timers run): every request of the run is made at the same Date.now().
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-12-07T12:00:00Z") });
    const { id } = await startRun(h.ctx, sub, {
      body: { agent: "refund-desk", input: { order_id: "ORD-1001", amount_cents: 9000, reason: "Torn box" } },
    });
    await h.ctx.worker.idle();
    vi.useRealTimers();
    const tools = (await listInbox({ db: h.t.db }, admin, { query: {} })).approvals.filter((a) => a.runId === id).map((a) => a.tool);
    expect(tools).toEqual(["issue_refund", "notify_customer"]);
  });
});
