// The console's run operations end to end on a real database: start in the background, pause, decide
// (edit, reject, quorum, separation of duties), resume, retry, fork, audit. No HTTP here; the e2e suite
// drives the same functions through the browser and the REST API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import type { Actor } from "@/lib/auth/actor";
import { testContext } from "../helpers/context";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { listInbox, pendingCount } from "@/lib/services/inbox";
import { cancelRun, forkRun, resumeRun, retryRun } from "@/lib/services/operate";
import { auditPage } from "@/lib/services/audit";
import { getRunView, listRuns } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { diffCheckpoints, timelinePage } from "@/lib/services/timeline";
import { HttpError } from "@/lib/auth/errors";
import { admin } from "../helpers/actors";
import { cursorAfter } from "@/app/runs/[runId]/timeline/first-screen";

const submitter: Actor = { id: "u-sub", email: "submitter@example.com", name: "S", role: "submitter" };
const other: Actor = { id: "u-sub2", email: "other@example.com", name: "O", role: "submitter" };
const reviewer: Actor = { id: "u-rev", email: "reviewer@example.com", name: "R", role: "reviewer" };
const reviewer2: Actor = { id: "u-rev2", email: "reviewer2@example.com", name: "R2", role: "reviewer" };
const operator: Actor = { id: "u-op", email: "operator@example.com", name: "Op", role: "operator" };

async function status(p: Promise<unknown>): Promise<number | string> {
  try {
    await p;
    return 200;
  } catch (e) {
    return e instanceof HttpError ? e.status : String(e);
  }
}

describe.each(providers)("run operations on %s", (provider) => {
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

  it("starts in the background, pauses, takes an edited approval, resumes and completes once", async () => {
    expect(await status(startRun(ctx, reviewer, { body: { agent: "refund-desk", input: {} } }))).toBe(403);
    const bad = await startRun(ctx, submitter, {
      body: {
        agent: "refund-desk",
        input: { order_id: "nope", amount_cents: 100, reason: "broken" },
      },
    }).catch((e) => e);
    expect(bad).toMatchObject({ status: 400, field: "input.order_id" });
    expect(await t.db.run.count()).toBe(0);

    const { id } = await startRun(ctx, submitter, {
      body: {
        agent: "refund-desk",
        input: { order_id: "ORD-1001", amount_cents: 9000, reason: "Damaged in transit" },
      },
    });
    await ctx.worker.idle();
    const paused = await getRunView(ctx, submitter, { runId: id });
    expect(paused.run.state).toBe("paused");
    expect(paused.approvals.map((a) => [a.tool_name, a.status])).toEqual(
      expect.arrayContaining([
        ["issue_refund", "pending"],
        ["notify_customer", "pending"],
      ]),
    );
    expect(paused.canResume).toBe(false);
    // The list says what the run is about: its input's values as the start form's schema formats them.
    const listed = (await listRuns(ctx, submitter, { query: {} })).runs.find((r) => r.id === id);
    expect(listed?.about).toBe("ORD-1001 · €90.00 · Damaged in transit");
    expect(listed?.input).toBeNull();
    // The audit log names its targets as people do: the run by its agent, a user by email; one gone, by its id.
    const named = await t.db.user.create({ data: { email: "named@example.com", name: "N", role: "reviewer", passwordHash: "x" } });
    for (const [targetType, targetId] of [
      ["user", named.id],
      ["user", "u-gone"],
    ])
      await t.db.auditEvent.create({ data: { action: "user.update", targetType, targetId, data: "{}" } });
    const names = (await auditPage(ctx, admin, { query: {} })).events.map((e) => [e.targetId, e.targetName]);
    expect(names).toEqual(
      expect.arrayContaining([
        [id, `refund-desk run ${id.slice(0, 8)}`],
        [named.id, "named@example.com"],
        ["u-gone", null],
      ]),
    );
    // The two were asked by tools running in parallel, so either may be stored first: the view lists them as
    // the model called them whatever their timestamps say.
    const asked = await ctx.store.listState(paused.run.threadId, `approval:${id}:`);
    for (const e of asked) {
      const rec = e.value as { tool_name: string; requested_at_ms: number };
      const shifted = rec.tool_name === "issue_refund" ? rec.requested_at_ms + 7 : rec.requested_at_ms;
      await ctx.store.putState(paused.run.threadId, e.key, { ...rec, requested_at_ms: shifted });
    }
    expect((await getRunView(ctx, submitter, { runId: id })).approvals.map((a) => a.tool_name)).toEqual([
      "issue_refund",
      "notify_customer",
    ]);
    // The conversation comes from the snapshot: system, user, assistant with tool calls, tool result.
    expect(paused.conversation!.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);

    // Someone else's run is invisible to a submitter; the submitter cannot approve.
    expect(await status(getRunView(ctx, other, { runId: id }))).toBe(404);
    expect((await listRuns({ db: t.db }, other, { query: {} })).runs).toHaveLength(0);
    expect(await status(decide(ctx, submitter, { approvalId: `${id}:2:call_refund`, body: { decision: "approve" } }))).toBe(403);

    const inbox = await listInbox({ db: t.db }, reviewer, { query: { agent: "refund-desk" } });
    expect(inbox.approvals.map((a) => a.tool).sort()).toEqual(["issue_refund", "notify_customer"]);
    expect(inbox.approvals.find((a) => a.tool === "issue_refund")).toMatchObject({
      requestedBy: "submitter@example.com",
      quorum: 1,
      approvals: 0,
    });

    const invalid = await decide(ctx, reviewer, {
      approvalId: `${id}:2:call_refund`,
      body: {
        decision: "approve",
        args: { order_id: "ORD-1001", amount_cents: "lots", reason: "x" },
      },
    }).catch((e) => e);
    expect(invalid).toMatchObject({ status: 400, field: "args.amount_cents" });
    await decide(ctx, reviewer, {
      approvalId: `${id}:2:call_refund`,
      body: {
        decision: "approve",
        args: { order_id: "ORD-1001", amount_cents: 6000, reason: "Damaged in transit" },
      },
    });
    const again = await decide(ctx, reviewer2, { approvalId: `${id}:2:call_refund`, body: { decision: "approve" } }).catch((e) => e);
    expect(again).toMatchObject({ status: 409, current: { status: "approved" } });
    expect(await status(resumeRun(ctx, reviewer, { runId: id }))).toBe(409); // notify still pending
    // The decision that completes the step resumes the run (refund-desk does not opt out): no Resume to press.
    const last = await decide(ctx, reviewer, { approvalId: `${id}:2:call_notify`, body: { decision: "approve" } });
    expect(last.resumed).toBe(true);
    expect(await status(resumeRun(ctx, reviewer, { runId: id }))).toBe(409);

    const view = await getRunView(ctx, reviewer, { runId: id });
    expect(view.approvals.find((a) => a.tool_name === "issue_refund")!.changes).toEqual([
      { field: "amount_cents", before: 9000, after: 6000 },
    ]);
    await ctx.worker.idle();
    const done = await getRunView(ctx, reviewer, { runId: id });
    expect(done.run.state).toBe("completed");
    expect(done.run.totalTokens).toBeGreaterThan(0);
    const refunds = await t.db.refund.findMany({ where: { runId: id } });
    expect(refunds.map((r) => r.amountCents)).toEqual([6000]);
    const actions = (await t.db.auditEvent.findMany({ where: { targetId: id }, orderBy: { at: "asc" } })).map((a) => a.action);
    expect(actions).toEqual(["run.start", "approval.edit_approve", "approval.approve", "run.auto_resume"]);
    const edit = await t.db.auditEvent.findFirstOrThrow({ where: { targetId: id, action: "approval.edit_approve" } });
    expect(JSON.parse(edit.data)).toMatchObject({ before: { amount_cents: 9000 }, after: { amount_cents: 6000 } });
  });

  it("a rejection's reason reaches the model; the run completes without the refund", async () => {
    const { id } = await startRun(ctx, submitter, {
      body: {
        agent: "refund-desk",
        input: { order_id: "ORD-1002", amount_cents: 8000, reason: "Late" },
      },
    });
    await ctx.worker.idle();
    expect(await status(decide(ctx, reviewer, { approvalId: `${id}:2:call_refund`, body: { decision: "reject" } }))).toBe(400);
    await decide(ctx, reviewer, {
      approvalId: `${id}:2:call_refund`,
      body: { decision: "reject", reason: "Customer already got a voucher" },
    });
    expect((await decide(ctx, reviewer, { approvalId: `${id}:2:call_notify`, body: { decision: "approve" } })).resumed).toBe(true);
    await ctx.worker.idle();
    const view = await getRunView(ctx, reviewer, { runId: id });
    expect(view.run.state).toBe("completed");
    const toolMsg = view.conversation!.messages.find((m) => m.role === "tool" && m.tool_call_id === "call_refund");
    expect(toolMsg?.content).toContain("Customer already got a voucher");
    expect(await t.db.refund.count({ where: { runId: id } })).toBe(0);
  });

  it("a 2-of-2 quorum needs two distinct reviewers, then resumes by itself", async () => {
    const { id } = await startRun(ctx, submitter, {
      body: {
        agent: "deploy-bot",
        input: { service: "web", version: "1.2.3", environment: "production" },
      },
    });
    await ctx.worker.idle();
    const first = await decide(ctx, reviewer, { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } });
    expect(first).toMatchObject({ approval: { status: "pending" }, resumed: false });
    expect((await listInbox({ db: t.db }, reviewer2, { query: {} })).approvals.find((a) => a.runId === id)).toMatchObject({
      quorum: 2,
      approvals: 1,
    });
    expect(await status(decide(ctx, reviewer, { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } }))).toBe(409);
    const second = await decide(ctx, reviewer2, { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } });
    expect(second).toMatchObject({ approval: { status: "approved" }, resumed: true });
    await ctx.worker.idle();
    expect((await getRunView(ctx, reviewer, { runId: id })).run.state).toBe("completed");
    expect(await t.db.deployment.count({ where: { runId: id } })).toBe(1);
  });

  it("nobody approves a run they started", async () => {
    const { id } = await startRun(ctx, admin, {
      body: {
        agent: "deploy-bot",
        input: { service: "api", version: "2.0.0", environment: "staging" },
      },
    });
    await ctx.worker.idle();
    const e = await decide(ctx, admin, { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } }).catch((x) => x);
    expect(e).toMatchObject({ status: 403 });
    expect((await decide(ctx, reviewer, { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } })).resumed).toBe(true);
    await ctx.worker.idle();
  });

  it("cancels a paused run; forks a new run from a checkpoint; retries a failed run without repeating effects", async () => {
    const { id } = await startRun(ctx, submitter, {
      body: {
        agent: "deploy-bot",
        input: { service: "db", version: "3.0.0", environment: "staging" },
      },
    });
    await ctx.worker.idle();
    expect((await listInbox({ db: t.db }, reviewer, { query: {} })).approvals.map((a) => a.runId)).toContain(id);
    const waiting = (await pendingCount({ db: t.db }, reviewer)).pending;
    expect(await status(cancelRun(ctx, reviewer, { runId: id }))).toBe(403);
    await cancelRun(ctx, operator, { runId: id });
    await ctx.worker.idle();
    const cancelled = await getRunView(ctx, operator, { runId: id });
    expect(cancelled.run.state).toBe("cancelled");
    // The page says who cancelled it (its requests say only that the run ended).
    expect(cancelled.cancelledBy).toBe(operator.email);
    // Its request no longer waits in any inbox: the cancel closed it and says why; no decision lands on it.
    expect(cancelled.approvals).toEqual([
      expect.objectContaining({
        status: "expired",
        decisions: [expect.objectContaining({ by: "system:run-ended", reason: "The run was cancelled" })],
      }),
    ]);
    expect((await listInbox({ db: t.db }, reviewer, { query: {} })).approvals.map((a) => a.runId)).not.toContain(id);
    expect((await pendingCount({ db: t.db }, reviewer)).pending).toBe(waiting - 1);
    expect(await status(decide(ctx, reviewer, { approvalId: cancelled.approvals[0].id, body: { decision: "approve" } }))).toBe(409);

    const tl = await timelinePage({ db: t.db }, operator, { runId: id, query: { take: 3 } });
    expect(tl.checkpoints).toHaveLength(3);
    expect(tl.nextCursor).not.toBeNull();
    // The page's own cursor after a row (its no-JavaScript "Next page" after the first screen, a row's
    // payload read after the row before it) is the one the API gives.
    const c2 = tl.checkpoints[2];
    expect(cursorAfter(id, { seq: c2.seq, phase: c2.phase, step: c2.step, t: c2.timestamp_ms }, false)).toBe(tl.nextCursor);
    const next = await timelinePage({ db: t.db }, operator, { runId: id, query: { cursor: tl.nextCursor! } });
    expect(next.prevTimestampMs).toBe(tl.checkpoints[2].timestamp_ms);
    const all = [...tl.checkpoints, ...next.checkpoints];
    const postLlm = all.find((c) => c.phase === "post_llm" && c.step === 1)!;
    const diff = await diffCheckpoints(ctx, operator, { runId: id, query: { a: String(all[0].seq), b: String(postLlm.seq) } });
    expect(diff.from.messageCount).toBe(2);
    expect(diff.to.llmCalls).toBe(1);
    expect(diff.to.pending?.toolCalls).toEqual(["get_status"]);
    expect(await status(diffCheckpoints(ctx, operator, { runId: id, query: { a: "0", b: "9999" } }))).toBe(400);

    // Fork from the step-1 post_llm: the new run re-does the step under its own id and pauses again.
    const fork = await forkRun(ctx, operator, { runId: id, body: { seq: postLlm.seq } });
    await ctx.worker.idle();
    const fv = await getRunView(ctx, operator, { runId: fork.id });
    expect(fv.run).toMatchObject({ state: "paused", forkedFromRunId: id, forkedFromSeq: postLlm.seq });
    expect(fv.approvals.map((a) => a.id)).toEqual([`${fork.id}:2:call_deploy`]);
    expect(await status(forkRun(ctx, operator, { runId: id, body: { seq: 99999 } }))).toBe(400);

    // A run that fails after its deploy ran: retry goes on from the last good checkpoint, and the deploy
    // replays from its effect record instead of running twice.
    const failing = testContext(t.db, { config: { failpoint: { at: "post_tool_batch", step: 2, action: "throw" } } });
    const r = await startRun(failing, submitter, {
      body: {
        agent: "deploy-bot",
        input: { service: "queue", version: "1.0.0", environment: "staging" },
      },
    });
    await failing.worker.idle();
    await decide(failing, reviewer, { approvalId: `${r.id}:2:call_deploy`, body: { decision: "approve" } });
    await failing.worker.idle();
    expect((await getRunView(ctx, operator, { runId: r.id })).run.state).toBe("failed");
    expect(await t.db.deployment.count({ where: { runId: r.id } })).toBe(1);
    await retryRun(ctx, operator, { runId: r.id });
    await ctx.worker.idle();
    expect((await getRunView(ctx, operator, { runId: r.id })).run.state).toBe("completed");
    expect(await t.db.deployment.count({ where: { runId: r.id } })).toBe(1);
    expect(await status(retryRun(ctx, operator, { runId: r.id }))).toBe(409);
  });
});
