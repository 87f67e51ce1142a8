// The runtime protocol (v1): an external runtime registers a run, parks a step's interrupts and gets the
// decisions back. Reviewers decide them through the same services as our own approvals (inbox, routing,
// separation of duties, the argsHash 409, audit); a decision is claimed exactly once; our workers never
// execute an external run; a terminal report closes what is pending; a token sees only its own runs and
// stops at revocation. On PostgreSQL, a long-poll held by one instance is woken by a decision on another.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signature } from "@/lib/webhooks/pause";
import { PrismaStore } from "@/lib/db/store";
import { getApproval } from "@/lib/runner";
import type { Actor } from "@/lib/auth/actor";
import type { HttpError } from "@/lib/auth/errors";
import type { AppContext } from "@/lib/context";
import { sweep } from "@/lib/services/deadlines";
import { decide } from "@/lib/services/decide";
import { listInbox } from "@/lib/services/inbox";
import { cancelRun, resumeRun, retryRun } from "@/lib/services/operate";
import { getRunView } from "@/lib/services/run-view";
import { claimDecision, withdrawInterrupt } from "@/lib/services/runtime-claim";
import { getRuntimeRun, listDecisions, parkInterrupts, registerRun } from "@/lib/services/runtime-protocol";
import { reportEvents } from "@/lib/services/runtime-progress";
import { type RuntimeCaller, actorFromToken, runtimeFromToken } from "@/lib/auth/tokens";
import { createToken, revokeToken } from "@/lib/services/tokens";
import { auditPage } from "@/lib/services/audit";
import { databaseWithContext, freshDatabase, providers, type TestDb, twoInstances } from "../helpers/databases";
import { admin } from "../helpers/actors";

const rev: Actor = { id: "u-rev", email: "rev@example.com", name: "R", role: "reviewer" };
const rev2: Actor = { id: "u-rev2", email: "rev2@example.com", name: "R2", role: "reviewer" };
const op: Actor = { id: "u-op", email: "op@example.com", name: "O", role: "operator" };

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as HttpError,
  );

const refund = (id: string, amount: number, extra: Record<string, unknown> = {}) => ({
  id,
  action: { name: "issue_refund", args: { order_id: "ORD-1", amount_cents: amount }, callId: id },
  message: "Refund over the limit",
  argsSchema: {
    type: "object",
    properties: { order_id: { type: "string" }, amount_cents: { type: "integer", minimum: 0 } },
    required: ["order_id", "amount_cents"],
    additionalProperties: false,
  },
  ...extra,
});

async function runtimeToken(ctx: AppContext, name: string) {
  const t = await createToken(ctx, admin, { body: { name, role: "runtime" } });
  return { token: t.token, id: t.id, caller: (await runtimeFromToken(ctx.db, t.token)) as RuntimeCaller };
}

describe.each(providers)("runtime protocol on %s", (provider) => {
  const h = databaseWithContext(provider);
  let rt: RuntimeCaller;
  let token: string;
  let tokenId: string;
  beforeAll(async () => {
    await h.t.db.user.create({ data: { email: "alice@example.com", name: "Alice", role: "submitter", passwordHash: "x" } });
    ({ caller: rt, token, id: tokenId } = await runtimeToken(h.ctx, "agents-js"));
  });

  it("a runtime token is no actor elsewhere, acts for no user, and registers a run once per externalId", async () => {
    expect(rt).toEqual({ tokenId, name: "agents-js" });
    expect(await actorFromToken(h.ctx.db, token)).toBeNull();
    const refused = await failure(createToken(h.ctx, admin, { body: { name: "x", role: "runtime", userId: "u-rev" } }));
    expect([refused?.status, refused?.field]).toEqual([400, "userId"]);
    const body = {
      externalId: "thread-1",
      framework: "openai-agents",
      agent: "refund-bot",
      actsFor: "alice@example.com",
      labels: { team: "billing" },
    };
    const first = await registerRun(h.ctx, rt, { body });
    const again = await registerRun(h.ctx, rt, { body: { ...body, metadata: { attempt: 2 } } });
    expect(first).toMatchObject({
      externalId: "thread-1",
      framework: "openai-agents",
      agent: "refund-bot",
      state: "running",
      created: true,
    });
    expect([again.id, again.created, again.metadata]).toEqual([first.id, false, { attempt: 2 }]);
    expect((await failure(registerRun(h.ctx, rt, { body: { ...body, agent: "other" } })))?.status).toBe(409);
    expect((await failure(registerRun(h.ctx, rt, { body: { ...body, actsFor: "nobody@example.com" } })))?.field).toBe("actsFor");
    expect((await failure(registerRun(h.ctx, null, { body })))?.status).toBe(401);
    // Another runtime's token does not see it.
    const other = await runtimeToken(h.ctx, "langgraph");
    expect((await failure(getRuntimeRun(h.ctx, other.caller, { runId: first.id })))?.status).toBe(404);
    expect((await failure(parkInterrupts(h.ctx, other.caller, { runId: first.id, body: { interrupts: [refund("c0", 1)] } })))?.status).toBe(
      404,
    );
    // The console shows it as an external run.
    const view = await getRunView(h.ctx, admin, { runId: first.id });
    expect(view.run.external).toEqual({
      framework: "openai-agents",
      externalId: "thread-1",
      labels: { team: "billing" },
      metadata: { attempt: 2 },
    });
  });

  it("a step's calls park as approvals: the inbox lists them, reviewers decide, the runtime claims each once", async () => {
    const run = await registerRun(h.ctx, rt, {
      body: { externalId: "thread-2", framework: "openai-agents", agent: "refund-bot", actsFor: "alice@example.com" },
    });
    const batch = {
      batchId: "step-1",
      interrupts: [refund("call_a", 120_000), refund("call_b", 5_000, { decisions: ["approve", "reject"] })],
    };
    const parked = await parkInterrupts(h.ctx, rt, { runId: run.id, body: batch });
    expect(parked.state).toBe("paused");
    expect(parked.interrupts.map((i) => [i.interruptId, i.batchId, i.status, i.created])).toEqual([
      ["call_a", "step-1", "pending", true],
      ["call_b", "step-1", "pending", true],
    ]);
    // A retry parks nothing new.
    const retried = await parkInterrupts(h.ctx, rt, { runId: run.id, body: batch });
    expect(retried.interrupts.map((i) => [i.approvalId, i.created])).toEqual(parked.interrupts.map((i) => [i.approvalId, false]));
    const [a, b] = parked.interrupts.map((i) => i.approvalId);

    const inbox = await listInbox(h.ctx, rev, { query: {} });
    const listed = inbox.approvals.filter((x) => x.runId === run.id);
    expect(listed.map((x) => [x.id, x.tool, x.agent, x.reason])).toEqual([
      [a, "issue_refund", "refund-bot", "Refund over the limit"],
      [b, "issue_refund", "refund-bot", "Refund over the limit"],
    ]);
    const view = await getRunView(h.ctx, rev, { runId: run.id });
    expect(view.canResume).toBe(false);
    expect(view.approvals.find((x) => x.id === a)?.argsSchema?.properties?.amount_cents).toEqual({ type: "integer", minimum: 0 });
    expect(view.approvals.find((x) => x.id === b)?.argsSchema).toBeNull();

    // Nothing is decided yet: the claim is refused; a long-poll with wait=0 answers at once.
    expect((await failure(claimDecision(h.ctx, rt, { runId: run.id, interruptId: "call_a", body: { claimant: "p1" } })))?.status).toBe(409);
    expect((await listDecisions(h.ctx, rt, { runId: run.id, query: {} })).decisions).toEqual([]);

    // Separation of duties: the user the runtime acts for may not decide.
    const alice: Actor = {
      id: (await h.t.db.user.findUnique({ where: { email: "alice@example.com" } }))!.id,
      email: "alice@example.com",
      name: "A",
      role: "admin",
    };
    expect((await failure(decide(h.ctx, alice, { approvalId: a, body: { decision: "approve" } })))?.status).toBe(403);
    // What the runtime cannot apply is refused: call_b offers no edit.
    const noEdit = await failure(
      decide(h.ctx, rev, { approvalId: b, body: { decision: "approve", args: { order_id: "ORD-1", amount_cents: 1 } } }),
    );
    expect([noEdit?.status, noEdit?.field]).toEqual([400, "args"]);
    // Edited arguments are checked against the runtime's schema.
    const bad = await failure(
      decide(h.ctx, rev, { approvalId: a, body: { decision: "approve", args: { order_id: "ORD-1", amount_cents: -5 } } }),
    );
    expect([bad?.status, bad?.field]).toEqual([400, "args.amount_cents"]);

    // A long-poll held before the decision wakes when it is taken.
    const held = listDecisions(h.ctx, rt, { runId: run.id, query: { wait: "10" } });
    await new Promise((r) => setTimeout(r, 100));
    const viewA = view.approvals.find((x) => x.id === a)!;
    const t0 = Date.now();
    await decide(h.ctx, rev, {
      approvalId: a,
      body: { decision: "approve", args: { order_id: "ORD-1", amount_cents: 100_000 }, argsHash: viewA.argsHash },
    });
    const woke = await held;
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(woke.decisions.map((d) => [d.interruptId, d.decision, d.args, d.decidedBy])).toEqual([
      ["call_a", "edit", { order_id: "ORD-1", amount_cents: 100_000 }, ["rev@example.com"]],
    ]);
    // The argsHash the second reviewer saw is stale now that... (b is untouched); a stale hash on b is 409.
    const stale = await failure(decide(h.ctx, rev2, { approvalId: b, body: { decision: "approve", argsHash: viewA.argsHash } }));
    expect(stale?.status).toBe(409);
    await decide(h.ctx, rev2, { approvalId: b, body: { decision: "reject", reason: "Too small to bother" } });

    // The cursor reads on from where the runtime was.
    const rest = await listDecisions(h.ctx, rt, { runId: run.id, query: { cursor: woke.nextCursor! } });
    expect(rest.decisions.map((d) => [d.interruptId, d.decision, d.message, d.args])).toEqual([
      ["call_b", "reject", "Too small to bother", null],
    ]);
    expect(rest.pending).toBe(0);
    const all = await listDecisions(h.ctx, rt, { runId: run.id, query: {} });
    expect(all.decisions.map((d) => d.interruptId)).toEqual(["call_a", "call_b"]);
    expect((await failure(listDecisions(h.ctx, rt, { runId: run.id, query: { cursor: "nope" } })))?.field).toBe("cursor");
    expect((await failure(listDecisions(h.ctx, rt, { runId: run.id, query: { wait: "51" } })))?.field).toBe("wait");

    // One claimant: the first claim returns it, another claimant's (any process) is 409 with the decision.
    const claim = (interruptId: string, claimant: string, leaseS?: number) =>
      claimDecision(h.ctx, rt, { runId: run.id, interruptId, body: { claimant, ...(leaseS ? { leaseS } : {}) } });
    expect((await failure(claimDecision(h.ctx, rt, { runId: run.id, interruptId: "call_a", body: {} })))?.field).toBe("claimant");
    const claimed = await claim("call_a", "p1");
    expect([claimed.decision.decision, claimed.decision.claimedAt !== null, claimed.decision.claimant]).toEqual(["edit", true, "p1"]);
    const twice = await Promise.all(["p2", "p3", "p4"].map((p) => failure(claim("call_a", p))));
    expect(twice.map((e) => [e?.status, (e as { current?: { claimant?: string } })?.current?.claimant])).toEqual([
      [409, "p1"],
      [409, "p1"],
      [409, "p1"],
    ]);
    // The holder reads it again (a process that died after claiming comes back with its claimant id).
    expect((await claim("call_a", "p1")).decision.decision).toBe("edit");
    const both = await Promise.all(["q1", "q2"].map((p) => failure(claim("call_b", p))));
    expect(both.filter((e) => e === null)).toHaveLength(1);
    expect((await listDecisions(h.ctx, rt, { runId: run.id, query: {} })).decisions.every((d) => d.claimedAt !== null)).toBe(true);

    // Our workers never execute it: no resume from the console, the sweep or the dispatcher.
    await sweep(h.ctx);
    expect(await h.ctx.executor.resume(run.id)).toBe(false);
    expect((await failure(resumeRun(h.ctx, admin, { runId: run.id })))?.status).toBe(409);
    await h.ctx.worker.idle();
    expect((await getRuntimeRun(h.ctx, rt, { runId: run.id })).state).toBe("paused");

    const audit = await auditPage(h.ctx, admin, { query: { targetId: run.id } });
    expect(audit.events.map((e) => e.action).sort()).toEqual(
      ["approval.edit_approve", "approval.reject", "runtime.claim", "runtime.claim", "runtime.interrupt", "runtime.register"].sort(),
    );
  });

  it("progress makes the conversation; a terminal report closes what is pending; a question takes an answer of its schema", async () => {
    const run = await registerRun(h.ctx, rt, { body: { externalId: "thread-3", framework: "langgraph", agent: "helper" } });
    await parkInterrupts(h.ctx, rt, {
      runId: run.id,
      body: {
        interrupts: [
          {
            id: "q1",
            kind: "question",
            message: "Which plan?",
            responseSchema: { type: "object", properties: { plan: { type: "string", enum: ["basic", "pro"] } }, required: ["plan"] },
          },
        ],
      },
    });
    const [q] = (await getRunView(h.ctx, rev, { runId: run.id })).approvals;
    expect([q.kind, q.answerSchema?.required]).toEqual(["question", ["plan"]]);
    expect((await failure(decide(h.ctx, rev, { approvalId: q.id, body: { decision: "respond", answer: { plan: "gold" } } })))?.field).toBe(
      "answer.plan",
    );
    await decide(h.ctx, rev, { approvalId: q.id, body: { decision: "respond", answer: { plan: "pro" } } });
    expect((await claimDecision(h.ctx, rt, { runId: run.id, interruptId: "q1", body: { claimant: "c" } })).decision).toMatchObject({
      decision: "respond",
      answer: { plan: "pro" },
    });

    const events = [
      { type: "message", id: "m1", role: "user", content: "Set me up" },
      {
        type: "message",
        id: "m2",
        role: "assistant",
        content: "",
        toolCalls: [{ id: "t1", name: "create_account", args: { plan: "pro" } }],
      },
      { type: "tool_result", id: "r1", callId: "t1", name: "create_account", output: { ok: true } },
      { type: "phase", id: "p1", phase: "post_tool_batch", step: 2 },
    ];
    expect((await reportEvents(h.ctx, rt, { runId: run.id, body: { events } })).accepted).toBe(4);
    expect((await reportEvents(h.ctx, rt, { runId: run.id, body: { events } })).accepted).toBe(0);
    await parkInterrupts(h.ctx, rt, { runId: run.id, body: { interrupts: [refund("late", 10)] } });
    const done = await reportEvents(h.ctx, rt, { runId: run.id, body: { events: [{ type: "state", state: "completed" }] } });
    expect([done.state, done.closed]).toEqual(["completed", 1]);
    const view = await getRunView(h.ctx, rev, { runId: run.id });
    // What was reported, with the calls parked but never reported where they were asked (their cards' places).
    expect(view.conversation?.messages.map((m) => [m.role, m.role === "assistant" ? m.tool_calls.map((c) => c.id) : []])).toEqual([
      ["assistant", ["q1"]],
      ["user", []],
      ["assistant", ["t1"]],
      ["tool", []],
      ["assistant", ["late"]],
    ]);
    expect(view.conversation?.toolExecutions.map((t) => [t.tool_name, t.output])).toEqual([["create_account", { ok: true }]]);
    expect([view.run.state, view.run.phase, view.run.step]).toEqual(["completed", "post_tool_batch", 2]);
    expect((await listInbox(h.ctx, rev, { query: {} })).approvals.some((a) => a.runId === run.id)).toBe(false);
    const last = (await listDecisions(h.ctx, rt, { runId: run.id, query: {} })).decisions.at(-1);
    expect([last?.interruptId, last?.decision]).toEqual(["late", "expire"]);
    expect((await failure(parkInterrupts(h.ctx, rt, { runId: run.id, body: { interrupts: [refund("later", 1)] } })))?.status).toBe(409);
    // A long-poll on an ended run answers at once.
    const t0 = Date.now();
    await listDecisions(h.ctx, rt, { runId: run.id, query: { wait: "20", cursor: last!.cursor } });
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it("a claim passes to another claimant only after its lease, and never once the call's result was reported", async () => {
    const run = await registerRun(h.ctx, rt, { body: { externalId: "thread-lease", framework: "openai-agents", agent: "refund-bot" } });
    const parked = await parkInterrupts(h.ctx, rt, { runId: run.id, body: { interrupts: [refund("l1", 1), refund("l2", 2)] } });
    for (const p of parked.interrupts) await decide(h.ctx, rev, { approvalId: p.approvalId, body: { decision: "approve" } });
    const claim = (interruptId: string, claimant: string, leaseS?: number) =>
      failure(claimDecision(h.ctx, rt, { runId: run.id, interruptId, body: { claimant, ...(leaseS ? { leaseS } : {}) } }));
    expect(await claim("l1", "dead", 1)).toBeNull();
    expect(await claim("l2", "done", 1)).toBeNull();
    // l2's claimant reported the call's result: its claim is final.
    await reportEvents(h.ctx, rt, {
      runId: run.id,
      body: { events: [{ type: "tool_result", callId: "l2", name: "issue_refund", output: 1 }] },
    });
    expect((await claim("l1", "next"))?.status).toBe(409);
    await new Promise((r) => setTimeout(r, 1_100));
    // Past the lease with no result reported, the next claimant takes l1 over; the one that died is refused.
    expect(await claim("l1", "next")).toBeNull();
    expect((await claim("l1", "dead"))?.status).toBe(409);
    expect((await claim("l2", "next"))?.status).toBe(409);
    const [d1] = (await listDecisions(h.ctx, rt, { runId: run.id, query: {} })).decisions.filter((d) => d.interruptId === "l1");
    expect(d1.claimant).toBe("next");
    const audit = await auditPage(h.ctx, admin, { query: { targetId: run.id } });
    expect(
      audit.events.filter((e) => e.action === "runtime.claim").map((e) => (e.data as { taken_over_from?: string }).taken_over_from),
    ).toContain("dead");
  });

  it("a park is refused when a schema cannot be compiled or a known id asks something else; nothing of the batch is parked", async () => {
    const run = await registerRun(h.ctx, rt, { body: { externalId: "thread-schemas", framework: "langgraph", agent: "ops" } });
    const frob = refund("f1", 1, {
      argsSchema: { type: "object", properties: { order_id: { type: "string" }, amount_cents: { type: "frobnicate" } } },
    });
    const bad = await failure(parkInterrupts(h.ctx, rt, { runId: run.id, body: { interrupts: [refund("ok", 1), frob] } }));
    expect([bad?.status, bad?.field]).toEqual([400, "interrupts.1.argsSchema.properties.amount_cents"]);
    expect(bad?.message).toMatch(/Interrupt f1: its argsSchema at properties\.amount_cents cannot be compiled/);
    const question = {
      id: "q-bad",
      kind: "question",
      message: "Which code?",
      responseSchema: { type: "object", properties: { code: { type: "string", pattern: "(" } } },
    };
    const badAnswer = await failure(parkInterrupts(h.ctx, rt, { runId: run.id, body: { interrupts: [question] } }));
    expect([badAnswer?.status, badAnswer?.field]).toEqual([400, "interrupts.0.responseSchema.properties.code"]);
    expect((await getRunView(h.ctx, rev, { runId: run.id })).approvals).toEqual([]);

    // The same id with other arguments is not a retry: 409 with the interrupt as it was parked.
    await parkInterrupts(h.ctx, rt, { runId: run.id, body: { interrupts: [refund("same", 100)] } });
    const changed = await failure(
      parkInterrupts(h.ctx, rt, { runId: run.id, body: { interrupts: [refund("new", 5), refund("same", 999)] } }),
    );
    expect(changed?.status).toBe(409);
    expect((changed as { current?: unknown }).current).toMatchObject({
      interruptId: "same",
      status: "pending",
      action: { name: "issue_refund", args: { order_id: "ORD-1", amount_cents: 100 } },
    });
    expect((await getRunView(h.ctx, rev, { runId: run.id })).approvals.map((a) => a.tool_call_id)).toEqual(["same"]);
    // The same arguments again are a retry (created false).
    const again = await parkInterrupts(h.ctx, rt, { runId: run.id, body: { interrupts: [refund("same", 100)] } });
    expect(again.interrupts[0].created).toBe(false);
  });

  it("a reject and the deadline never depend on the schemas: a record parked with one that does not compile still closes", async () => {
    const run = await registerRun(h.ctx, rt, { body: { externalId: "thread-old-schema", framework: "langgraph", agent: "ops" } });
    const parked = await parkInterrupts(h.ctx, rt, {
      runId: run.id,
      body: { interrupts: [refund("o1", 1), refund("o2", 2, { timeoutS: 1 })] },
    });
    // As a park before the check would have stored them: an argsSchema the console cannot compile.
    const store = new PrismaStore(h.t.db);
    for (const p of parked.interrupts) {
      const rec = (await getApproval(store, run.id, p.approvalId))!;
      const broken = { ...rec, external: { ...rec.external!, args_schema: { type: "object", properties: { x: { type: "frobnicate" } } } } };
      await h.t.db.approval.update({ where: { id: rec.id }, data: { record: JSON.stringify(broken) } });
    }
    const [o1, o2] = parked.interrupts.map((p) => p.approvalId);
    const edit = await failure(decide(h.ctx, rev, { approvalId: o1, body: { decision: "approve", args: { x: 1 } } }));
    expect([edit?.status, edit?.field]).toEqual([400, "args"]);
    await decide(h.ctx, rev, { approvalId: o1, body: { decision: "reject", reason: "No" } });
    await new Promise((r) => setTimeout(r, 1_100));
    await sweep(h.ctx);
    const decided = (await listDecisions(h.ctx, rt, { runId: run.id, query: {} })).decisions;
    expect(decided.map((d) => [d.approvalId, d.decision])).toEqual([
      [o1, "reject"],
      [o2, "expire"],
    ]);
  });

  it("a runtime withdraws a pending interrupt: it leaves every inbox, audited; a decision afterwards is 409 with its state", async () => {
    const run = await registerRun(h.ctx, rt, { body: { externalId: "thread-withdraw", framework: "mcp", agent: "accounts" } });
    const [p] = (
      await parkInterrupts(h.ctx, rt, {
        runId: run.id,
        body: { interrupts: [{ id: "ask", kind: "question", message: "Which plan?" }] },
      })
    ).interrupts;
    expect((await listInbox(h.ctx, rev, { query: {} })).approvals.some((a) => a.id === p.approvalId)).toBe(true);
    const out = await withdrawInterrupt(h.ctx, rt, { runId: run.id, interruptId: "ask", body: { reason: "The MCP request timed out" } });
    expect([out.withdrawn, out.interrupt.status]).toEqual([true, "expired"]);
    expect((await listInbox(h.ctx, rev, { query: {} })).approvals.some((a) => a.id === p.approvalId)).toBe(false);
    const late = await failure(decide(h.ctx, rev, { approvalId: p.approvalId, body: { decision: "respond", reason: "pro" } }));
    expect([late?.status, (late as { current?: { status?: string } }).current?.status]).toEqual([409, "expired"]);
    expect((await withdrawInterrupt(h.ctx, rt, { runId: run.id, interruptId: "ask", body: {} })).withdrawn).toBe(false);
    expect((await failure(withdrawInterrupt(h.ctx, rt, { runId: run.id, interruptId: "nope", body: {} })))?.status).toBe(404);
    const [d] = (await listDecisions(h.ctx, rt, { runId: run.id, query: {} })).decisions;
    expect([d.decision, d.message, d.decidedBy]).toEqual(["expire", "The MCP request timed out", ["system:withdrawn"]]);
    const audit = await auditPage(h.ctx, admin, { query: { targetId: run.id } });
    expect(audit.events.filter((e) => e.action === "runtime.withdraw")).toHaveLength(1);
  });

  it("deadlines expire interrupts; an operator's cancel closes them; retry and fork are refused; revocation ends access", async () => {
    const run = await registerRun(h.ctx, rt, { body: { externalId: "thread-4", framework: "mcp", agent: "notes" } });
    await parkInterrupts(h.ctx, rt, { runId: run.id, body: { interrupts: [refund("d1", 1, { timeoutS: 1, onExpiry: "allow" })] } });
    // Decisions are ordered by when they were taken: the sweep runs on the clock (past the 1 s deadline).
    await new Promise((r) => setTimeout(r, 1_100));
    await sweep(h.ctx);
    const [d] = (await listDecisions(h.ctx, rt, { runId: run.id, query: {} })).decisions;
    expect([d.decision, d.decidedBy]).toEqual(["approve", ["system:deadline"]]);
    expect((await getRuntimeRun(h.ctx, rt, { runId: run.id })).state).toBe("paused");

    await parkInterrupts(h.ctx, rt, { runId: run.id, body: { interrupts: [refund("d2", 1)] } });
    expect((await failure(retryRun(h.ctx, op, { runId: run.id })))?.status).toBe(409);
    await cancelRun(h.ctx, op, { runId: run.id });
    const after = await listDecisions(h.ctx, rt, { runId: run.id, query: { cursor: d.cursor } });
    expect([after.state, after.decisions.map((x) => x.decision)]).toEqual(["cancelled", ["expire"]]);

    await revokeToken(h.ctx, admin, { tokenId });
    expect(await runtimeFromToken(h.ctx.db, token)).toBeNull();
  });
});

// Two instances on one PostgreSQL database, each with its own live bus (LISTEN/NOTIFY): the runtime's
// long-poll is held by A, the reviewer decides on B, and A answers within the bus's latency (not its
// 2 s safety poll).
describe.skipIf(!process.env.TEST_POSTGRES_URL)("runtime protocol across instances (PostgreSQL)", () => {
  let t: TestDb;
  let a: AppContext;
  let b: AppContext;
  let close: () => Promise<void>;
  beforeAll(async () => {
    t = await freshDatabase("postgresql");
    ({ a, b, close } = await twoInstances(t));
  });
  afterAll(async () => {
    await close?.();
    await t?.drop();
  });

  it("a long-poll on one instance is woken by a decision on another; a claim on either is once", async () => {
    const { caller } = await runtimeToken(a, "cross");
    const run = await registerRun(a, caller, { body: { externalId: "x-1", framework: "langgraph", agent: "ops" } });
    const [parked] = (await parkInterrupts(a, caller, { runId: run.id, body: { interrupts: [refund("x", 1)] } })).interrupts;
    const held = listDecisions(a, caller, { runId: run.id, query: { wait: "20" } });
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    await decide(b, rev, { approvalId: parked.approvalId, body: { decision: "approve" } });
    const woke = await held;
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(woke.decisions.map((d) => d.decision)).toEqual(["approve"]);
    const claims = await Promise.all(
      [a, b, a, b].map((ctx, k) => failure(claimDecision(ctx, caller, { runId: run.id, interruptId: "x", body: { claimant: `c${k}` } }))),
    );
    expect(claims.filter((e) => e === null)).toHaveLength(1);
    expect(claims.filter((e) => e?.status === 409)).toHaveLength(3);
  });
});

// The pause webhook for an external run's interrupts, and the decision webhook: same URL, same signature.
describe("runtime protocol webhooks (SQLite)", () => {
  const received: { body: Record<string, unknown>; signature: string; raw: string }[] = [];
  let server: Server;
  let url = "";
  beforeAll(async () => {
    server = createServer(async (req, res) => {
      let raw = "";
      for await (const c of req) raw += c;
      received.push({ body: JSON.parse(raw), signature: String(req.headers["x-afk-signature"]), raw });
      res.end("ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const h = databaseWithContext("sqlite");

  it("parking sends run.paused with deep links; a decision sends interrupt.decided, signed", async () => {
    // The receiver's port is known once it listens: the context gets the webhook then.
    const ctx = { ...h.ctx, webhook: { url, secret: "s3cret", baseUrl: "http://console" } };
    const { caller } = await runtimeToken(h.ctx, "hooks");
    const run = await registerRun(ctx, caller, { body: { externalId: "w-1", framework: "langgraph", agent: "ops" } });
    const [p] = (await parkInterrupts(ctx, caller, { runId: run.id, body: { interrupts: [refund("w", 5)] } })).interrupts;
    await expect.poll(() => received.length).toBe(1);
    expect(received[0].body).toMatchObject({ type: "run.paused", run_id: run.id, approval_ids: [p.approvalId] });
    await decide(ctx, rev, { approvalId: p.approvalId, body: { decision: "reject", reason: "No" } });
    await expect.poll(() => received.length).toBe(2);
    expect(received[1].body).toMatchObject({
      type: "interrupt.decided",
      run_id: run.id,
      external_id: "w-1",
      decisions: [{ interruptId: "w", decision: "reject", message: "No" }],
    });
    for (const r of received) {
      const t = Number(/t=(\d+)/.exec(r.signature)?.[1]);
      expect(r.signature).toBe(signature("s3cret", t, r.raw));
    }
  });
});
