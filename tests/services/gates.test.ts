// Gates before a delegation and before a model call, through the console's service (the REST routes'
// functions) on a real database: the demo agent release-planner holds its delegation to changelog-writer
// and its second model call. The inbox lists both kinds; a delegation's task is edited (400 naming the
// field when it is wrong) and audited; a model call is approved or rejected, nothing else; resume honours
// each decision and the subagent runs once, on the edited task.
import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import { HttpError } from "@/lib/auth/errors";
import { decide } from "@/lib/services/decide";
import { listInbox } from "@/lib/services/inbox";
import { resumeRun } from "@/lib/services/operate";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { databaseWithContext, providers } from "../helpers/databases";

const sub: Actor = { id: "u-sub", email: "submitter@example.com", name: "S", role: "submitter" };
const rev: Actor = { id: "u-rev", email: "reviewer@example.com", name: "R", role: "reviewer" };

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e) => (e instanceof HttpError ? { status: e.status, field: (e as { field?: string }).field } : { status: 500, field: String(e) }),
  );

describe.each(providers)("policy gates on %s", (provider) => {
  const h = databaseWithContext(provider);

  async function planned() {
    const { id } = await startRun(h.ctx, sub, { body: { agent: "release-planner", input: { service: "billing", version: "2.4.0" } } });
    await h.ctx.worker.idle();
    return id;
  }

  it("a delegation waits, its task is edited; then the second model call waits and is approved", async () => {
    const id = await planned();
    let view = await getRunView(h.ctx, rev, { runId: id });
    expect(view.run.state).toBe("paused");
    const [gate] = view.approvals;
    expect(gate).toMatchObject({ kind: "subagent", tool_name: "delegate_to_changelog_writer", args: { task: "Notes for billing 2.4.0" } });
    expect(gate.argsSchema).toMatchObject({ properties: { task: { type: "string" } }, required: ["task"] });
    expect(view.conversation!.children).toEqual({}); // the subagent has not started
    const item = (await listInbox({ db: h.t.db }, rev, { query: {} })).approvals.find((a) => a.id === gate.id);
    expect(item).toMatchObject({ kind: "subagent", summary: "Task: Notes for billing 2.4.0" });

    expect(await failure(decide(h.ctx, rev, { approvalId: gate.id, body: { decision: "approve", args: { task: "" } } }))).toEqual({
      status: 400,
      field: "args.task",
    });
    await decide(h.ctx, rev, {
      approvalId: gate.id,
      body: { decision: "approve", args: { task: "Notes for billing 2.4.0, security fixes first" } },
    });
    await resumeRun(h.ctx, rev, { runId: id });
    await h.ctx.worker.idle();

    view = await getRunView(h.ctx, rev, { runId: id });
    expect(view.run.state).toBe("paused");
    const llm = view.approvals.find((a) => a.kind === "llm")!;
    expect(llm).toMatchObject({ status: "pending", step: 2, tool_name: "llm_call", args: { model: "demo:release-planner", llm_calls: 1 } });
    expect(llm.argsSchema).toBeNull();
    expect((await listInbox({ db: h.t.db }, rev, { query: {} })).approvals.find((a) => a.id === llm.id)?.summary).toMatch(
      /^Model call of step 2 with demo:release-planner: 1 call, (\d+ tokens|about [\d,]+ tokens), (\$\d+\.\d{4}|under \$0\.0001) so far$/,
    );
    // The subagent ran once, on the edited task, before the gate.
    expect(view.conversation!.children.call_notes.messages.find((m) => m.role === "user")?.content).toBe(
      "Notes for billing 2.4.0, security fixes first",
    );
    expect(await failure(decide(h.ctx, rev, { approvalId: llm.id, body: { decision: "respond", reason: "hi" } }))).toEqual({
      status: 400,
      field: "decision",
    });
    expect(await failure(decide(h.ctx, rev, { approvalId: llm.id, body: { decision: "approve", args: { model: "x" } } }))).toEqual({
      status: 400,
      field: "args",
    });
    await decide(h.ctx, rev, { approvalId: llm.id, body: { decision: "approve" } });
    await resumeRun(h.ctx, rev, { runId: id });
    await h.ctx.worker.idle();
    view = await getRunView(h.ctx, rev, { runId: id });
    expect(view.run.state).toBe("completed");
    expect(view.conversation!.messages.at(-1)?.content).toContain("Plan for billing 2.4.0: ");
    expect(view.conversation!.messages.at(-1)?.content).toContain("security fixes first");
    const audit = await h.t.db.auditEvent.findMany({
      where: { targetId: id, action: { startsWith: "approval." } },
      orderBy: { at: "asc" },
    });
    expect(audit.map((a) => [a.action, JSON.parse(a.data as string).kind])).toEqual([
      ["approval.edit_approve", "subagent"],
      ["approval.approve", "llm"],
    ]);
  });

  it("a rejected model call fails the run with the reviewer's reason", async () => {
    const id = await planned();
    const [gate] = (await getRunView(h.ctx, rev, { runId: id })).approvals;
    await decide(h.ctx, rev, { approvalId: gate.id, body: { decision: "approve" } });
    await resumeRun(h.ctx, rev, { runId: id });
    await h.ctx.worker.idle();
    const llm = (await getRunView(h.ctx, rev, { runId: id })).approvals.find((a) => a.kind === "llm")!;
    await decide(h.ctx, rev, { approvalId: llm.id, body: { decision: "reject", reason: "over budget this month" } });
    await resumeRun(h.ctx, rev, { runId: id });
    await h.ctx.worker.idle();
    const view = await getRunView(h.ctx, rev, { runId: id });
    expect(view.run.state).toBe("failed");
    expect(view.run.error).toContain("The model call of step 2 was rejected: over budget this month");
  });
});
