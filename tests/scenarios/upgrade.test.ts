import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import type { Db } from "@/lib/db/client";
import { testContext } from "../helpers/context";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { listInbox, pendingCount } from "@/lib/services/inbox";
import { resumeRun } from "@/lib/services/operate";
import { getRunView, listRuns } from "@/lib/services/run-view";
import { providers } from "../helpers/databases";
import { fromFixture, status } from "../helpers/upgrade";

const root = path.resolve(import.meta.dirname, "../..");
const fixtures = path.join(root, "tests/fixtures/pre-redesign");
type Scenario =
  | "completed"
  | "toolApproval"
  | "question"
  | "subagentGate"
  | "modelCallGate"
  | "quorumHalf"
  | "subagentApproval"
  | "failed"
  | "cancelled";
const runIds: Record<"sqlite" | "postgresql", Record<Scenario, string>> = JSON.parse(
  readFileSync(path.join(fixtures, "runs.json"), "utf8"),
);

describe.each(providers)("a database of the version before the redesign, on %s", (provider) => {
  const ids = runIds[provider];
  let t: { db: Db; drop: () => Promise<void> };
  let ctx: AppContext;
  const who: Record<string, Actor> = {};
  beforeAll(async () => {
    t = await fromFixture(fixtures, "upgrade", provider);
    ctx = testContext(t.db);
    // The actors are the fixture's own users, read as a session reads them.
    for (const u of await t.db.user.findMany())
      who[u.email.split("@")[0]] = { id: u.id, email: u.email, name: u.name, role: u.role as Actor["role"], groups: JSON.parse(u.groups) };
  });
  afterAll(async () => {
    await ctx?.worker.idle();
    await t?.drop();
  });
  const view = (scenario: Scenario) => getRunView(ctx, who.operator, { runId: ids[scenario] });
  const pendingOf = async (scenario: Scenario) =>
    (await getRunView(ctx, who.reviewer, { runId: ids[scenario] })).approvals.filter((a) => a.status === "pending");
  const executions = async (scenario: Scenario) => (await view(scenario)).conversation!.toolExecutions.map((e) => e.tool_name);
  const audit = async (scenario: Scenario) =>
    (await t.db.auditEvent.findMany({ where: { targetId: ids[scenario] }, orderBy: { at: "asc" } })).map((a) => [a.action, a.actorEmail]);

  it("lists every run with its state and every pending item in the inbox", async () => {
    // The approvals migration (20261214000000_approvals) moved this version's approvals into their table.
    const applied = await t.db.$queryRawUnsafe<{ migration_name: string }[]>(
      `SELECT "migration_name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`,
    );
    expect(applied.map((m) => m.migration_name)).toContain("20261214000000_approvals");
    expect(await t.db.stateEntry.count({ where: { kind: "approval" } })).toBe(0);
    expect(await t.db.approval.count()).toBeGreaterThan(0);
    const { runs } = await listRuns({ db: t.db }, who.operator, { query: {} });
    const stateOf = Object.fromEntries(runs.map((r) => [r.id, r.state]));
    expect(Object.fromEntries(Object.entries(ids).map(([s, id]) => [s, stateOf[id]]))).toEqual({
      completed: "completed",
      toolApproval: "paused",
      question: "paused",
      subagentGate: "paused",
      modelCallGate: "paused",
      quorumHalf: "paused",
      subagentApproval: "paused",
      failed: "failed",
      cancelled: "cancelled",
    });
    const inbox = await listInbox({ db: t.db }, who.reviewer2, { query: {} });
    const items = inbox.approvals.map((a) => [
      Object.entries(ids).find(([, id]) => id === a.runId)?.[0],
      a.kind,
      a.tool,
      a.approvals,
      a.quorum,
    ]);
    expect(items.sort()).toEqual(
      [
        ["modelCallGate", "llm", "llm_call", 0, 1],
        ["question", "question", "request_user_input", 0, 1],
        ["quorumHalf", "tool", "deploy", 1, 2],
        ["subagentApproval", "tool", "deploy", 0, 2],
        ["subagentGate", "subagent", "delegate_to_changelog_writer", 0, 1],
        ["toolApproval", "tool", "issue_refund", 0, 1],
        ["toolApproval", "tool", "notify_customer", 0, 1],
      ].sort(),
    );
    expect(inbox.corrupt).toEqual([]);
    expect(inbox.approvals.find((a) => a.runId === ids.subagentApproval)).toMatchObject({
      agent: "deploy-bot",
      rootAgent: "release-coordinator",
    });
    expect(inbox.approvals.find((a) => a.runId === ids.quorumHalf)).toMatchObject({ decidedByMe: false });
    expect((await listInbox({ db: t.db }, who.reviewer, { query: {} })).approvals.find((a) => a.runId === ids.quorumHalf)).toMatchObject({
      decidedByMe: true,
    });
    expect((await pendingCount({ db: t.db }, who.reviewer)).pending).toBe(7);
  });

  it("the ended runs read as they ended", async () => {
    const done = await view("completed");
    expect(done.conversation!.messages.at(-1)?.content).toBe("Order ORD-1001 is delivered.");
    const failed = await view("failed");
    expect(failed.run.error).toContain("The model call of step 2 was rejected: over budget this month");
    const cancelled = await view("cancelled");
    expect(cancelled.approvals.map((a) => [a.status, a.decisions.map((d) => d.reason)])).toEqual([["expired", ["The run was cancelled"]]]);
    expect(await status(decide(ctx, who.reviewer, { approvalId: cancelled.approvals[0].id, body: { decision: "approve" } }))).toBe(409);
  });

  it("a tool approval is decided and the run, resumed by the last decision, refunds and notifies once", async () => {
    const pending = await pendingOf("toolApproval");
    const resumed: boolean[] = [];
    for (const a of pending)
      resumed.push((await decide(ctx, who.reviewer, { approvalId: a.id, body: { decision: "approve", argsHash: a.argsHash } })).resumed);
    expect(resumed).toEqual([false, true]);
    await ctx.worker.idle();
    expect((await view("toolApproval")).run.state).toBe("completed");
    expect((await t.db.refund.findMany({ where: { runId: ids.toolApproval } })).map((r) => r.amountCents)).toEqual([9000]);
    expect(await t.db.outboxMessage.count({ where: { runId: ids.toolApproval } })).toBe(1);
    expect((await executions("toolApproval")).sort()).toEqual(["issue_refund", "lookup_order", "notify_customer"]);
    expect(await audit("toolApproval")).toEqual([
      ["run.start", "submitter@example.com"],
      ["approval.approve", "reviewer@example.com"],
      ["approval.approve", "reviewer@example.com"],
      ["run.auto_resume", null],
    ]);
  });

  it("a question is answered and the run resumes by itself with the answer", async () => {
    const [q] = await pendingOf("question");
    expect(q.kind).toBe("question");
    expect(
      (await decide(ctx, who.reviewer, { approvalId: q.id, body: { decision: "respond", answer: { plan: "team", seats: 12 } } })).resumed,
    ).toBe(true);
    await ctx.worker.idle();
    const done = await view("question");
    expect(done.run.state).toBe("completed");
    expect(done.conversation!.messages.at(-1)?.content).toBe("Set up Acme on team with 12 seats; welcome sent.");
    expect(await t.db.outboxMessage.count({ where: { runId: ids.question } })).toBe(1);
    expect(await executions("question")).toEqual(["request_user_input", "send_welcome"]);
  });

  it("a subagent gate is edited and approved; the model-call gate after it too; the subagent runs once", async () => {
    const [gate] = await pendingOf("subagentGate");
    expect(gate).toMatchObject({ kind: "subagent", args: { task: "Notes for billing 2.4.0" } });
    await decide(ctx, who.reviewer, {
      approvalId: gate.id,
      body: {
        decision: "approve",
        args: { task: "Notes for billing 2.4.0, security fixes first" },
      },
    });
    await resumeRun(ctx, who.reviewer, { runId: ids.subagentGate });
    await ctx.worker.idle();
    const [llm] = await pendingOf("subagentGate");
    expect(llm).toMatchObject({ kind: "llm", step: 2 });
    await decide(ctx, who.reviewer2, { approvalId: llm.id, body: { decision: "approve" } });
    await resumeRun(ctx, who.reviewer2, { runId: ids.subagentGate });
    await ctx.worker.idle();
    const done = await view("subagentGate");
    expect(done.run.state).toBe("completed");
    expect(done.conversation!.messages.at(-1)?.content).toMatch(/^Plan for billing 2\.4\.0: .*security fixes first/);
    expect(done.conversation!.children.call_notes.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "Notes for billing 2.4.0, security fixes first",
    ]);
  });

  it("a model-call gate written before the upgrade is approved; the subagent that ran before is not run again", async () => {
    const [llm] = await pendingOf("modelCallGate");
    expect(llm).toMatchObject({ kind: "llm", step: 2, tool_name: "llm_call" });
    await decide(ctx, who.reviewer2, { approvalId: llm.id, body: { decision: "approve" } });
    await resumeRun(ctx, who.reviewer2, { runId: ids.modelCallGate });
    await ctx.worker.idle();
    const done = await view("modelCallGate");
    expect(done.run.state).toBe("completed");
    expect(done.conversation!.messages.at(-1)?.content).toBe(
      'Plan for payments 3.1.0: {"result":"Release notes: Notes for payments 3.1.0 — bug fixes and improvements."}',
    );
    expect(done.conversation!.children.call_notes.messages.filter((m) => m.role === "assistant")).toHaveLength(1);
    expect((await audit("modelCallGate")).map(([action]) => action)).toEqual([
      "run.start",
      "approval.approve",
      "run.resume",
      "approval.approve",
      "run.resume",
    ]);
  });

  it("a quorum with one decision made before the upgrade takes a second reviewer's, resumes and deploys once", async () => {
    const [a] = await pendingOf("quorumHalf");
    expect(a.decisions.map((d) => d.by)).toEqual(["reviewer@example.com"]);
    expect(await status(decide(ctx, who.reviewer, { approvalId: a.id, body: { decision: "approve" } }))).toBe(409);
    expect(await decide(ctx, who.reviewer2, { approvalId: a.id, body: { decision: "approve" } })).toMatchObject({
      approval: { status: "approved" },
      resumed: true,
    });
    await ctx.worker.idle();
    expect((await view("quorumHalf")).run.state).toBe("completed");
    expect(await t.db.deployment.count({ where: { runId: ids.quorumHalf } })).toBe(1);
    expect(await executions("quorumHalf")).toEqual(["get_status", "deploy"]);
    expect(await audit("quorumHalf")).toEqual([
      ["run.start", "submitter@example.com"],
      ["approval.approve", "reviewer@example.com"],
      ["approval.approve", "reviewer2@example.com"],
      ["run.auto_resume", null],
    ]);
  });

  it("a subagent's approval takes its quorum; the parent resumes and the subagent deploys once", async () => {
    const [a] = await pendingOf("subagentApproval");
    expect(a).toMatchObject({ tool_name: "deploy", agent_path: "release-coordinator/deploy-bot", quorum: 2 });
    // The quorum's second vote resumes the parent run (release-coordinator resumes by itself).
    expect((await decide(ctx, who.reviewer, { approvalId: a.id, body: { decision: "approve" } })).resumed).toBe(false);
    expect((await decide(ctx, who.reviewer2, { approvalId: a.id, body: { decision: "approve" } })).resumed).toBe(true);
    await ctx.worker.idle();
    const done = await view("subagentApproval");
    expect(done.run.state).toBe("completed");
    expect(done.conversation!.messages.at(-1)?.content).toBe(
      "Release of search 1.0.0: delegate_to_changelog_writer=ok, delegate_to_deploy_bot=ok.",
    );
    expect(await t.db.deployment.count({ where: { runId: a.run_id } })).toBe(1);
    expect(done.conversation!.children.call_ship.toolExecutions.map((e) => e.tool_name)).toEqual(["get_status", "deploy"]);
  });

  it("nothing is left waiting", async () => {
    expect((await listInbox({ db: t.db }, who.reviewer, { query: {} })).approvals).toEqual([]);
    expect((await pendingCount({ db: t.db }, who.reviewer)).pending).toBe(0);
    const { runs } = await listRuns({ db: t.db }, who.operator, { query: {} });
    expect(runs.map((r) => r.state).sort()).toEqual([
      "cancelled",
      "completed",
      "completed",
      "completed",
      "completed",
      "completed",
      "completed",
      "completed",
      "failed",
    ]);
  });
});
