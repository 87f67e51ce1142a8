// The run page of a run an external runtime registered, on SQLite and PostgreSQL: its conversation is what the
// runtime reported, with each step's parked calls where they were asked (so a reviewer can decide them on
// the run page even when the runtime reported no message); its timeline, in the rows and picture the
// console's own runs use, shows the reported phases, messages, tool results and state, and each interrupt
// parked, decided and claimed, paged and compared like checkpoints.
import { describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { filterChoices } from "@/lib/services/catalog";
import { listInbox } from "@/lib/services/inbox";
import { getRunView, listRuns } from "@/lib/services/run-view";
import { claimDecision } from "@/lib/services/runtime-claim";
import { type RuntimeCaller, runtimeFromToken } from "@/lib/auth/tokens";
import { parkInterrupts, registerRun } from "@/lib/services/runtime-protocol";
import { diffCheckpoints, timelinePage } from "@/lib/services/timeline";
import { timelineLayout } from "@/lib/timeline";
import { cursorAfter } from "@/app/runs/[runId]/timeline/first-screen";
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

  it("has a timeline of its reports, interrupts, decisions and claims, paged and compared like checkpoints", async () => {
    const rt = await runtime(h.ctx, "agents");
    const run = await registerRun(h.ctx, rt, { body: { externalId: "tl-1", framework: "openai-agents", agent: "refund-bot" } });
    const report = async (...events: Record<string, unknown>[]) => {
      await tick();
      await reportEvents(h.ctx, rt, { runId: run.id, body: { events } });
    };
    await report({ type: "message", id: "u", role: "user", content: "Refund A-1 and A-2" });
    await report({ type: "phase", id: "p1", phase: "pre_llm", step: 1 });
    await report({ type: "phase", id: "p2", phase: "post_llm", step: 1 });
    await tick();
    const parked = await parkInterrupts(h.ctx, rt, {
      runId: run.id,
      body: {
        batchId: "step-1",
        interrupts: [
          { ...call("call_a", "issue_refund", { order_id: "A-1", amount_cents: 900 }), decisions: ["approve", "edit", "reject"] },
          call("call_b", "issue_refund", { order_id: "A-2", amount_cents: 250000 }),
        ],
      },
    });
    const [a, b] = parked.interrupts.map((i) => i.approvalId);
    await tick();
    await decide(h.ctx, rev, { approvalId: a, body: { decision: "approve", args: { order_id: "A-1", amount_cents: 800 } } });
    await tick();
    await decide(h.ctx, rev, { approvalId: b, body: { decision: "reject", reason: "Too large" } });
    // Decided, not yet claimed: the page says the runtime has them to pick up (and offers no Resume).
    const waiting = async () => (await getRunView(h.ctx, rev, { runId: run.id })).runtimePickup;
    expect(await waiting()).toEqual({ waiting: 2, overdue: 0 });
    // The approved call claimed with a one-second lease, the rejected one with the default.
    for (const [interruptId, leaseS] of [
      ["call_a", 1],
      ["call_b", 300],
    ] as const) {
      await tick();
      await claimDecision(h.ctx, rt, { runId: run.id, interruptId, body: { claimant: "page", leaseS } });
    }
    expect(await waiting()).toEqual({ waiting: 0, overdue: 0 });
    // Past its lease with no result reported, the page says the runtime has not reported back on it…
    await new Promise((r) => setTimeout(r, 1100));
    expect(await waiting()).toEqual({ waiting: 0, overdue: 1 });
    await report({ type: "tool_result", id: "r", callId: "call_a", name: "issue_refund", output: { ok: true } });
    // …until it does.
    expect(await waiting()).toEqual({ waiting: 0, overdue: 0 });
    await report({ type: "state", id: "end", state: "completed" });

    const page = await timelinePage(h.ctx, rev, { runId: run.id, query: {} });
    expect(page.run.framework).toBe("openai-agents");
    // The run page's "Timeline (N)" counts what the timeline lists (it said 0: an external run has no checkpoints).
    expect((await getRunView(h.ctx, rev, { runId: run.id })).checkpointCount).toBe(page.checkpoints.length);
    expect(page.checkpoints.map((c) => [c.seq, c.phase, c.step])).toEqual([
      [1, "run_started", 0],
      [2, "message", 0],
      [3, "pre_llm", 1],
      [4, "post_llm", 1],
      [5, "paused", 1],
      [6, "paused", 1],
      [7, "decided", 1],
      [8, "decided", 1],
      [9, "resumed", 1],
      [10, "resumed", 1],
      [11, "tool_result", 1],
      [12, "run_terminal", 1],
    ]);
    const at = (seq: number) => page.checkpoints[seq - 1].payload;
    expect(at(5)).toMatchObject({ interrupt: { interruptId: "call_a", batchId: "step-1", args: { order_id: "A-1", amount_cents: 900 } } });
    expect(at(7)).toMatchObject({
      decision: { interruptId: "call_a", decision: "edit", args: { order_id: "A-1", amount_cents: 800 }, decidedBy: ["rev@example.com"] },
    });
    expect(at(8)).toMatchObject({ decision: { interruptId: "call_b", decision: "reject", message: "Too large" } });
    expect(at(9)).toEqual({ claimed: { interruptId: "call_a", approvalId: a } });
    expect(at(12)).toEqual({ reported: { type: "state", id: "end", state: "completed" } });
    const times = page.checkpoints.map((c) => c.timestamp_ms);
    expect(times).toEqual([...times].sort((x, y) => x - y));

    // The picture the console's own runs get: the model call the runtime reported, and the pause from the
    // first interrupt parked to the first decision claimed.
    const layout = timelineLayout(
      page.checkpoints.map((c) => ({ seq: c.seq, phase: c.phase, step: c.step, t: c.timestamp_ms })),
      { left: 0, right: 900 },
    );
    expect(layout.spans.map((s) => [s.kind, s.interrupted])).toEqual([
      ["llm", false],
      ["paused", false],
    ]);

    // Paged as checkpoints are: the cursor names the last seq of a page.
    const first = await timelinePage(h.ctx, rev, { runId: run.id, query: { take: "5" } });
    expect([first.checkpoints.map((c) => c.seq), first.nextCursor, first.prevTimestampMs]).toEqual([[1, 2, 3, 4, 5], "5", null]);
    // The page's own cursor after a row (its no-JavaScript "Next page" after the first screen, a row's
    // payload read after the row before it) is the one the API gives.
    const c5 = first.checkpoints[4];
    expect(cursorAfter(run.id, { seq: c5.seq, phase: c5.phase, step: c5.step, t: c5.timestamp_ms }, true)).toBe(first.nextCursor);
    const second = await timelinePage(h.ctx, rev, { runId: run.id, query: { cursor: first.nextCursor!, take: "5" } });
    expect([second.checkpoints.map((c) => c.seq), second.nextCursor, second.prevTimestampMs]).toEqual([[6, 7, 8, 9, 10], "10", times[4]]);
    const last = await timelinePage(h.ctx, rev, { runId: run.id, query: { cursor: second.nextCursor!, take: "5" } });
    expect([last.checkpoints.map((c) => c.seq), last.nextCursor]).toEqual([[11, 12], null]);
    await expect(timelinePage(h.ctx, rev, { runId: run.id, query: { cursor: "run:0001" } })).rejects.toMatchObject({ field: "cursor" });

    // Compared as checkpoints are: state, what was reported between, and the rows' payloads.
    const diff = await diffCheckpoints(h.ctx, rev, { runId: run.id, query: { a: "1", b: "12" } });
    expect([diff.from.state, diff.to.state, diff.from.messageCount, diff.to.messageCount, diff.to.toolCalls]).toEqual([
      "running",
      "completed",
      0,
      2,
      1,
    ]);
    expect(diff.messagesAdded).toEqual([
      { role: "user", content: "Refund A-1 and A-2" },
      { role: "tool", tool_call_id: "call_a", name: "issue_refund", content: '{"ok":true}', success: true, untrusted: true },
    ]);
    expect((await diffCheckpoints(h.ctx, rev, { runId: run.id, query: { a: "5", b: "9" } })).to.state).toBe("running");
    expect((await diffCheckpoints(h.ctx, rev, { runId: run.id, query: { a: "5", b: "8" } })).to.state).toBe("paused");
    await expect(diffCheckpoints(h.ctx, rev, { runId: run.id, query: { a: "1", b: "13" } })).rejects.toMatchObject({ field: "b" });
  });

  it("is found by its external agent and framework in the runs list and the inbox filters", async () => {
    const rt = await runtime(h.ctx, "filters");
    const agents = await registerRun(h.ctx, rt, { body: { externalId: "f-1", framework: "openai-agents", agent: "billing-bot" } });
    const graph = await registerRun(h.ctx, rt, { body: { externalId: "f-2", framework: "langgraph", agent: "ops-graph" } });
    for (const [r, id] of [
      [agents, "fa"],
      [graph, "fg"],
    ] as const)
      await parkInterrupts(h.ctx, rt, { runId: r.id, body: { interrupts: [call(id, "act", { n: 1 })] } });
    const choices = await filterChoices(h.ctx, rev);
    expect(choices.agents).toEqual(expect.arrayContaining(["billing-bot", "ops-graph"]));
    expect(choices.frameworks).toEqual(expect.arrayContaining(["langgraph", "openai-agents"]));
    const runs = await listRuns(h.ctx, rev, { query: { framework: "langgraph" } });
    expect(runs.runs.map((r) => r.id)).toContain(graph.id);
    expect(runs.runs.map((r) => r.id)).not.toContain(agents.id);
    const inbox = await listInbox(h.ctx, rev, { query: { framework: "openai-agents" } });
    expect(inbox.approvals.map((a) => a.runId)).toContain(agents.id);
    expect(inbox.approvals.map((a) => a.runId)).not.toContain(graph.id);
    expect((await listInbox(h.ctx, rev, { query: { agent: "ops-graph" } })).approvals.map((a) => a.runId)).toEqual([graph.id]);
  });
});
