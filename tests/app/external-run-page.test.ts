// The run page of a run an external runtime registered, on SQLite and PostgreSQL: its conversation is what the
// runtime reported, with each step's parked calls where they were asked (so a reviewer can decide them on
// the run page even when the runtime reported no message).
import { describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { getRunView } from "@/lib/services/run-view";
import { type RuntimeCaller, parkInterrupts, registerRun, runtimeFromToken } from "@/lib/services/runtime-protocol";
import { reportEvents } from "@/lib/services/runtime-progress";
import { createToken } from "@/lib/services/tokens";
import { admin, rev } from "../helpers/actors";
import { databaseWithContext, providers } from "../helpers/databases";

// Reports and parked calls a moment apart, so their order in time is the order they were made in.
const tick = () => new Promise((r) => setTimeout(r, 15));

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, action: { name, args }, message: `${name}?` });

async function runtime(ctx: AppContext, name: string): Promise<RuntimeCaller> {
  const made = await createToken(ctx, admin, { body: { name, role: "runtime" } });
  return (await runtimeFromToken(ctx.db, made.token)) as RuntimeCaller;
}

describe.each(providers)("an external run's page (%s)", (provider) => {
  const h = databaseWithContext(provider);

  it("shows the reported conversation with each step's unreported calls where they were asked, each with its card", async () => {
    const rt = await runtime(h.ctx, "graph");
    const run = await registerRun(h.ctx, rt, { body: { externalId: "conv-1", framework: "langgraph", agent: "sale-ops" } });
    await reportEvents(h.ctx, rt, {
      runId: run.id,
      body: { events: [{ type: "message", id: "m1", role: "user", content: "Plan the sale" }] },
    });
    await tick();
    // A step of two calls the runtime never reported as a message…
    await parkInterrupts(h.ctx, rt, {
      runId: run.id,
      body: {
        batchId: "step-1",
        interrupts: [call("i:0", "scale_service", { replicas: 12 }), call("i:1", "page_oncall", { team: "payments" })],
      },
    });
    await tick();
    // …then one it did report, with its call.
    await reportEvents(h.ctx, rt, {
      runId: run.id,
      body: {
        events: [
          {
            type: "message",
            id: "m2",
            role: "assistant",
            content: "Dropping the cache",
            toolCalls: [{ id: "c9", name: "drop_cache", args: { region: "eu" } }],
          },
        ],
      },
    });
    await parkInterrupts(h.ctx, rt, {
      runId: run.id,
      body: { batchId: "step-2", interrupts: [call("c9", "drop_cache", { region: "eu" })] },
    });

    const view = await getRunView(h.ctx, rev, { runId: run.id });
    expect(view.conversation?.messages).toEqual([
      { role: "user", content: "Plan the sale" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "i:0", name: "scale_service", args: { replicas: 12 } },
          { id: "i:1", name: "page_oncall", args: { team: "payments" } },
        ],
      },
      { role: "assistant", content: "Dropping the cache", tool_calls: [{ id: "c9", name: "drop_cache", args: { region: "eu" } }] },
    ]);
    // Every call shown has its approval (what the run page puts under it), none shown twice.
    const shown = view.conversation!.messages.flatMap((m) => (m.role === "assistant" ? m.tool_calls.map((c) => c.id) : []));
    expect(shown.sort()).toEqual(view.approvals.map((a) => a.tool_call_id).sort());
  });
});
