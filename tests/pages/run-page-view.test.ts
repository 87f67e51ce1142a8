// The run page's hydration payload (app/runs/[runId]/page-view.ts): a real paused run's view less the fields
// the page never reads, everything it shows kept as the live refresh sends it.
import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { runPageView } from "@/app/runs/[runId]/page-view";
import { databaseWithContext } from "../helpers/databases";

const sub: Actor = { id: "u-sub", email: "submitter@example.com", name: "S", role: "submitter" };
const rev: Actor = { id: "u-r1", email: "r1@example.com", name: "R1", role: "reviewer" };

describe("the run page's view", () => {
  const h = databaseWithContext("sqlite");

  it("drops the records' bookkeeping and the tool executions, keeps what the page shows", async () => {
    const { id } = await startRun(h.ctx, sub, {
      body: { agent: "refund-desk", input: { order_id: "ORD-1001", amount_cents: 9000, reason: "damaged in transit" } },
    });
    await h.ctx.worker.idle();
    const view = await getRunView(h.ctx, rev, { runId: id });
    expect(view.approvals.length).toBeGreaterThan(0);
    expect(view.conversation?.toolExecutions.length).toBeGreaterThan(0);

    const page = runPageView(view);
    expect(page.conversation).not.toHaveProperty("toolExecutions");
    expect(page.conversation?.messages).toEqual(view.conversation?.messages);
    for (const key of ["threadId", "submittedById", "updatedAt", "external"]) expect(page.run).not.toHaveProperty(key);
    expect(page.run).toMatchObject({ id, state: "paused", input: view.run.input, submittedByEmail: "submitter@example.com" });
    page.approvals.forEach((a, i) => {
      for (const key of ["schema_version", "input_hash", "root_run_id", "thread_id", "requested_by"]) expect(a).not.toHaveProperty(key);
      const { id: aid, args, argsHash, argsSchema, status, canDecide, deadline_ms, fallback, decisions } = view.approvals[i];
      expect(a).toMatchObject({ id: aid, args, argsHash, argsSchema, status, canDecide, deadline_ms, fallback, decisions });
    });
    expect(JSON.stringify(page).length).toBeLessThan(JSON.stringify(view).length);
  });
});
