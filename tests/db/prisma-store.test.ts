// The runner on the Prisma store, on a real SQLite file and (with TEST_POSTGRES_URL) a real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { PrismaStore } from "@/lib/db/store";
import { createRuntime } from "@/lib/runtime";
import { AgentCheckpointCorruptionError, checkpointLatestKey, approvalIdOf, decideApproval, keys, listCheckpoints } from "@/lib/runner";

describe.each(providers)("Prisma store on %s", (provider) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(() => t?.drop());

  it("implements the MemoryStore contract", async () => {
    const s = new PrismaStore(t.db);
    expect(await s.getState("th", "a")).toBeUndefined();
    await s.putState("th", "a", { x: 1 });
    await s.putStates("th", [
      { key: "p:2", value: [2] },
      { key: "p:1", value: "one" },
      { key: "p:1", value: "uno" },
    ]);
    expect(await s.getState("th", "a")).toEqual({ x: 1 });
    expect(await s.listState("th", "p:")).toEqual([
      { key: "p:1", value: "uno", text: '"uno"' },
      { key: "p:2", value: [2], text: "[2]" },
    ]);
    // A writer's own text is stored verbatim (a log entry in canonical key order), and listed back.
    await s.putStates("th", [{ key: "p:3", value: { b: 1, a: 2 }, text: '{"a":2,"b":1}' }]);
    expect((await s.listState("th", "p:3"))[0]).toEqual({ key: "p:3", value: { a: 2, b: 1 }, text: '{"a":2,"b":1}' });
    expect(await s.listState("other", "p:")).toEqual([]);
    await s.deleteState("th", "a");
    expect(await s.getState("th", "a")).toBeUndefined();
    expect(await s.compareAndPut("th", "v", undefined, { version: 0 })).toBe(true);
    expect(await s.compareAndPut("th", "v", undefined, { version: 0 })).toBe(false);
    expect(await s.compareAndPut("th", "v", 0, { version: 1 })).toBe(true);
    expect(await s.compareAndPut("th", "v", 0, { version: 2 })).toBe(false);
  });

  it("runs refund-desk to a pause, stores projected columns, and resumes to completion", async () => {
    const rt = createRuntime(t.db);
    const agent = rt.agent("refund-desk");
    const input = { order_id: "ORD-777", amount_cents: 9000, reason: "late" };
    const r1 = await rt.runner.run(agent, {
      userMessage: JSON.stringify(input),
      runId: "pr1",
      context: { submitted_by: "sub@example.com" },
    });
    expect(r1.state).toBe("paused");
    expect(r1.pendingApprovals).toEqual(["pr1:2:call_refund", "pr1:2:call_notify"]);
    const pending = await t.db.approval.findMany({ where: { status: "pending" }, orderBy: { toolCallId: "desc" } });
    expect(pending.map((p) => [p.id, p.runId, p.rootRunId, p.step, p.kind, p.agentName, p.toolName, p.version, p.decidedBy])).toEqual([
      ["pr1:2:call_refund", "pr1", "pr1", 2, "tool", "refund-desk", "issue_refund", 0, null],
      ["pr1:2:call_notify", "pr1", "pr1", 2, "tool", "refund-desk", "notify_customer", 0, null],
    ]);
    expect(pending.every((p) => Number(p.requestedAtMs) === JSON.parse(p.record).requested_at_ms)).toBe(true);
    expect(await t.db.stateEntry.count({ where: { kind: "approval" } })).toBe(0);
    const timeline = await t.db.stateEntry.findMany({ where: { runId: "pr1", kind: "checkpoint" }, orderBy: { key: "asc" } });
    expect(timeline.map((c) => c.phase)).toEqual((await listCheckpoints(rt.store, "pr1", "pr1")).map((c) => c.phase));
    expect(timeline.every((c) => typeof c.timestampMs === "bigint" && c.step !== null)).toBe(true);
    expect(await t.db.refund.count({ where: { runId: "pr1" } })).toBe(0);

    const refundTool = agent.tools.find((x) => x.name === "issue_refund");
    const notifyTool = agent.tools.find((x) => x.name === "notify_customer");
    await decideApproval(rt.store, "pr1", await approvalIdOf(rt.store, "pr1", "pr1", "call_refund"), refundTool, {
      by: "rev@example.com",
      decision: "approve",
      args: { order_id: "ORD-777", amount_cents: 8000, reason: "late" },
    });
    await decideApproval(rt.store, "pr1", await approvalIdOf(rt.store, "pr1", "pr1", "call_notify"), notifyTool, {
      by: "rev@example.com",
      decision: "reject",
      reason: "we call them instead",
    });
    expect(await t.db.approval.count({ where: { status: "pending" } })).toBe(0);
    // The closing decision is in its columns: by whom, what, when.
    const closed = await t.db.approval.findMany({ orderBy: { toolCallId: "desc" } });
    expect(closed.map((c) => [c.status, c.version, c.decidedBy, c.decision, c.decidedAtMs !== null])).toEqual([
      ["approved", 1, "rev@example.com", "approve", true],
      ["rejected", 1, "rev@example.com", "reject", true],
    ]);
    const r2 = await rt.runner.resume(agent, { runId: "pr1", threadId: "pr1" });
    expect(r2.state).toBe("completed");
    expect(r2.finalText).toBe("Refunded 80.00 for ORD-777.");
    expect((await t.db.refund.findMany({ where: { runId: "pr1" } })).map((r) => r.amountCents)).toEqual([8000]);
    expect(await t.db.outboxMessage.count({ where: { runId: "pr1" } })).toBe(0);
    const latest = await t.db.stateEntry.findUniqueOrThrow({
      where: { threadId_key: { threadId: "pr1", key: checkpointLatestKey("pr1") } },
    });
    expect(latest.phase).toBe("run_terminal");
  });

  it("a subagent's approval pauses the parent; resuming the parent finishes both", async () => {
    const rt = createRuntime(t.db);
    const agent = rt.agent("release-coordinator");
    const r1 = await rt.runner.run(agent, { userMessage: JSON.stringify({ service: "web", version: "1.2.3" }), runId: "rel1" });
    expect(r1.state).toBe("paused");
    const approval = await t.db.approval.findFirstOrThrow({ where: { status: "pending", threadId: "rel1" } });
    expect(approval).toMatchObject({ runId: "rel1.call_ship", rootRunId: "rel1" });
    const rec = JSON.parse(approval.record);
    expect(rec).toMatchObject({
      run_id: "rel1.call_ship",
      root_run_id: "rel1",
      tool_name: "deploy",
      agent_path: "release-coordinator/deploy-bot",
    });
    const cps = await listCheckpoints(rt.store, "rel1", "rel1");
    expect(cps.map((c) => c.phase)).toContain("pre_subagent_batch");
    const deployTool = rt.agent("deploy-bot").tools.find((x) => x.name === "deploy");
    // Production deployments need two distinct reviewers.
    const one = await decideApproval(rt.store, "rel1", await approvalIdOf(rt.store, "rel1", "rel1.call_ship", "call_deploy"), deployTool, {
      by: "rev",
      decision: "approve",
    });
    expect(one.status).toBe("pending");
    await decideApproval(rt.store, "rel1", await approvalIdOf(rt.store, "rel1", "rel1.call_ship", "call_deploy"), deployTool, {
      by: "rev2",
      decision: "approve",
    });
    const r2 = await rt.runner.resume(agent, { runId: "rel1", threadId: "rel1" });
    expect(r2.state).toBe("completed");
    expect(r2.subagentExecutions.map((s) => [s.subagent, s.state])).toEqual([
      ["changelog-writer", "completed"],
      ["deploy-bot", "completed"],
    ]);
    expect(await t.db.deployment.count({ where: { runId: "rel1.call_ship" } })).toBe(1);
    expect((await listCheckpoints(rt.store, "rel1", "rel1")).map((c) => c.phase)).toContain("post_subagent_batch");
  });

  it("a corrupt stored record is AgentCheckpointCorruptionError", async () => {
    const rt = createRuntime(t.db);
    await rt.runner.run(rt.agent("deploy-bot"), {
      userMessage: JSON.stringify({ service: "api", version: "2.0.0", environment: "staging" }),
      runId: "cor1",
    });
    await t.db.stateEntry.update({
      where: { threadId_key: { threadId: "cor1", key: keys.runtime("cor1") } },
      data: { value: '{"schema_version":1,"ste' },
    });
    await expect(rt.runner.resume(rt.agent("deploy-bot"), { runId: "cor1", threadId: "cor1" })).rejects.toBeInstanceOf(
      AgentCheckpointCorruptionError,
    );
  });
});
