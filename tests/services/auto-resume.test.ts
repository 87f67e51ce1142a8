// The decision that completes a step resumes the run, through the Resume button's queue and lease path:
// once however many deciders finish at once (two reviewers on a step's two calls, a quorum's two votes, a
// decision against a Resume), audited as `run.auto_resume`, and the decision's answer says so. An agent
// that opts out (`autoResume: false`) waits instead: its run is listed as ready to resume (the runs list's
// `ready`, the `state=ready` filter), the sweep leaves it, and a Resume resumes it. A deadline's fallback
// resumes as a person's decision does, unless the agent opted out.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sweep } from "@/lib/services/deadlines";
import { type Agent, defineTool } from "@/lib/runner";
import { decide } from "@/lib/services/decide";
import { resumeRun } from "@/lib/services/operate";
import { getRunView, listRuns } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { actor, op, sub } from "../helpers/actors";
import { manualResume } from "../helpers/agents";
import { databaseWithContext, providers } from "../helpers/databases";
import { scriptedModel } from "../helpers/scripted-model";

const rev1 = actor("reviewer", "rev1");
const rev2 = actor("reviewer", "rev2");

// One call that waits for a reviewer, with a deadline of a second; `autoResume` as given.
function timed(name: string, autoResume?: boolean): Agent {
  const act = defineTool({ name: "act", description: "act", schema: z.object({}), execute: async () => ({ done: true }) });
  return {
    name,
    model: "script:timed",
    instructions: "",
    tools: [act],
    inputSchema: z.object({}),
    toUserMessage: () => "go",
    policy: [{ id: "act", tool: "act", action: "require_approval", reason: "reviewed" }],
    approvalTimeoutS: 1,
    ...(autoResume === undefined ? {} : { autoResume }),
  };
}
const timedModel = scriptedModel("script", (turn) =>
  turn === 1 ? { text: "acting", calls: [{ id: "c1", name: "act", args: {} }] } : { text: "done" },
);

describe.each(providers)("resuming after the last decision on %s", (provider) => {
  const h = databaseWithContext(provider, {
    agents: {
      "timed-auto": timed("timed-auto"),
      "timed-manual": timed("timed-manual", false),
      ...manualResume(() => h.t.db, "refund-desk"),
    },
    models: { script: timedModel },
  });

  async function refund(agent: string, order: string) {
    const { id } = await startRun(h.ctx, sub, { body: { agent, input: { order_id: order, amount_cents: 9000, reason: "broken" } } });
    await h.ctx.worker.idle();
    expect((await getRunView(h.ctx, op, { runId: id })).run.state).toBe("paused");
    return id;
  }
  const resumes = async (runId: string) =>
    (await h.t.db.auditEvent.findMany({ where: { targetId: runId, action: { in: ["run.resume", "run.auto_resume"] } } })).map((a) => [
      a.action,
      a.actorEmail,
    ]);
  const readyIds = async (query: Record<string, string> = {}) =>
    (await listRuns(h.ctx, op, { query })).runs.filter((r) => r.ready).map((r) => r.id);

  it("two reviewers finishing a step's two calls at once resume it once, and the run completes once", async () => {
    for (const order of ["ORD-7001", "ORD-7002", "ORD-7003"]) {
      const id = await refund("refund-desk", order);
      const answers = await Promise.all([
        decide(h.ctx, rev1, { approvalId: `${id}:2:call_refund`, body: { decision: "approve" } }),
        decide(h.ctx, rev2, { approvalId: `${id}:2:call_notify`, body: { decision: "approve" } }),
      ]);
      expect(answers.map((a) => a.resumed).sort()).toEqual([false, true]);
      await h.ctx.worker.idle();
      expect((await getRunView(h.ctx, op, { runId: id })).run.state).toBe("completed");
      expect(await resumes(id)).toEqual([["run.auto_resume", null]]);
      expect(await h.t.db.refund.count({ where: { runId: id } })).toBe(1);
      expect(await h.t.db.outboxMessage.count({ where: { runId: id } })).toBe(1);
    }
  });

  it("a quorum resumes only when its last required vote lands, once when the two votes land together", async () => {
    const start = async () => {
      const { id } = await startRun(h.ctx, sub, {
        body: { agent: "deploy-bot", input: { service: "api", version: "1.2.3", environment: "production" } },
      });
      await h.ctx.worker.idle();
      const [a] = (await getRunView(h.ctx, op, { runId: id })).approvals.filter((x) => x.status === "pending");
      expect(a.quorum).toBe(2);
      return { id, approvalId: a.id };
    };
    const one = await start();
    const first = await decide(h.ctx, rev1, { approvalId: one.approvalId, body: { decision: "approve" } });
    expect([first.approval.status, first.resumed]).toEqual(["pending", false]);
    expect((await h.t.db.run.findUniqueOrThrow({ where: { id: one.id } })).state).toBe("paused");
    expect(await decide(h.ctx, rev2, { approvalId: one.approvalId, body: { decision: "approve" } })).toMatchObject({
      approval: { status: "approved" },
      resumed: true,
    });
    const two = await start();
    const votes = await Promise.all(
      [rev1, rev2].map((who) => decide(h.ctx, who, { approvalId: two.approvalId, body: { decision: "approve" } })),
    );
    expect(votes.map((v) => v.resumed).sort()).toEqual([false, true]);
    await h.ctx.worker.idle();
    for (const { id } of [one, two]) {
      expect((await getRunView(h.ctx, op, { runId: id })).run.state).toBe("completed");
      expect(await resumes(id)).toEqual([["run.auto_resume", null]]);
      expect(await h.t.db.deployment.count({ where: { runId: id } })).toBe(1);
    }
  });

  it("a last decision racing a Resume: one of them resumes the run", async () => {
    const id = await refund("refund-desk", "ORD-7101");
    await decide(h.ctx, rev1, { approvalId: `${id}:2:call_refund`, body: { decision: "approve" } });
    const [decided, resumed] = await Promise.allSettled([
      decide(h.ctx, rev2, { approvalId: `${id}:2:call_notify`, body: { decision: "approve" } }),
      resumeRun(h.ctx, op, { runId: id }),
    ]);
    expect(decided.status).toBe("fulfilled");
    const won = [decided.status === "fulfilled" && decided.value.resumed, resumed.status === "fulfilled"];
    expect(won.filter(Boolean)).toHaveLength(1);
    await h.ctx.worker.idle();
    expect(await resumes(id)).toHaveLength(1);
    expect(await h.t.db.refund.count({ where: { runId: id } })).toBe(1);
  });

  it("an agent that opts out waits, listed as ready to resume, until someone presses Resume", async () => {
    const other = await refund("refund-desk", "ORD-7201"); // still waiting for its decisions
    const { id } = await startRun(h.ctx, sub, {
      body: { agent: "refund-desk-manual", input: { order_id: "ORD-7202", amount_cents: 9000, reason: "broken" } },
    });
    await h.ctx.worker.idle();
    expect(await readyIds()).not.toContain(id);
    for (const call of ["call_refund", "call_notify"])
      expect((await decide(h.ctx, rev1, { approvalId: `${id}:2:${call}`, body: { decision: "approve" } })).resumed).toBe(false);
    expect((await h.t.db.run.findUniqueOrThrow({ where: { id } })).state).toBe("paused");
    expect((await getRunView(h.ctx, op, { runId: id })).canResume).toBe(true);
    // Listed as ready, and found by the filter; a run still waiting for a decision is neither.
    expect(await readyIds()).toContain(id);
    expect(await readyIds()).not.toContain(other);
    const filtered = (await listRuns(h.ctx, op, { query: { state: "ready" } })).runs;
    expect(filtered.map((r) => r.id)).toContain(id);
    expect(filtered.map((r) => r.id)).not.toContain(other);
    expect(filtered.every((r) => r.state === "paused" && r.ready)).toBe(true);
    // The sweep resumes what resumes by itself only.
    await sweep(h.ctx);
    expect((await h.t.db.run.findUniqueOrThrow({ where: { id } })).state).toBe("paused");
    expect(await resumes(id)).toEqual([]);
    await resumeRun(h.ctx, op, { runId: id });
    await h.ctx.worker.idle();
    expect((await getRunView(h.ctx, op, { runId: id })).run.state).toBe("completed");
    expect(await resumes(id)).toEqual([["run.resume", op.email]]);
    expect(await readyIds({ state: "ready" })).not.toContain(id);
  });

  it("a sweep that changes nothing tells no page to refetch a paused run", async () => {
    const { id } = await startRun(h.ctx, sub, { body: { agent: "timed-auto", input: {} } });
    await h.ctx.worker.idle();
    expect((await h.t.db.run.findUniqueOrThrow({ where: { id } })).state).toBe("paused");
    const told: string[] = [];
    const off = h.ctx.live.subscribe((m) => {
      if (m.topic === "run" && m.runId === id) told.push(m.topic);
    });
    try {
      // Before its deadline: still waiting, nothing moved.
      await sweep(h.ctx);
      await sweep(h.ctx);
      expect(told).toEqual([]);
      // Past it: the fallback decides and the run's pages hear of it.
      await sweep(h.ctx, Date.now() + 5_000);
      expect(told.length).toBeGreaterThan(0);
    } finally {
      off();
    }
  });

  it("a run whose subagent's request waits is not ready", async () => {
    const { id } = await startRun(h.ctx, sub, { body: { agent: "release-coordinator", input: { service: "search", version: "2.0.0" } } });
    await h.ctx.worker.idle();
    const view = await getRunView(h.ctx, op, { runId: id });
    expect(view.run.state).toBe("paused");
    expect(view.approvals.filter((a) => a.status === "pending").map((a) => a.run_id)).toEqual([`${id}.call_ship`]);
    expect((await listRuns(h.ctx, op, { query: {} })).runs.find((r) => r.id === id)?.ready).toBe(false);
  });

  it("a deadline's fallback resumes the run as a decision would, unless its agent opted out", async () => {
    const ids: Record<string, string> = {};
    for (const agent of ["timed-auto", "timed-manual"]) {
      ids[agent] = (await startRun(h.ctx, sub, { body: { agent, input: {} } })).id;
    }
    await h.ctx.worker.idle();
    const result = await sweep(h.ctx, Date.now() + 5_000);
    expect(result.expired).toBeGreaterThanOrEqual(2);
    await h.ctx.worker.idle();
    expect((await h.t.db.run.findUniqueOrThrow({ where: { id: ids["timed-auto"] } })).state).toBe("completed");
    expect(await resumes(ids["timed-auto"])).toEqual([["run.auto_resume", null]]);
    expect((await h.t.db.run.findUniqueOrThrow({ where: { id: ids["timed-manual"] } })).state).toBe("paused");
    expect(await resumes(ids["timed-manual"])).toEqual([]);
    expect(await readyIds({ state: "ready" })).toContain(ids["timed-manual"]);
  });
});
