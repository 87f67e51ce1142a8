// Ask a human: an agent pauses with a question (askHuman), the inbox lists it as a question, a reviewer
// answers with an object of its answer schema (or declines), and the answer is the call's result. The
// same durability as approvals: one answer wins under concurrency, a deadline expires it (never "allow":
// nobody can answer in the reviewer's place), every answer is audited.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Actor } from "@/lib/auth/actor";
import { HttpError } from "@/lib/auth/errors";
import { testContext } from "../helpers/context";
import { decide } from "@/lib/services/decide";
import { listInbox } from "@/lib/services/inbox";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { sweep } from "@/lib/services/deadlines";
import { type Agent, askHuman } from "@/lib/runner";
import { databaseWithContext, providers } from "../helpers/databases";
import { scriptedModel } from "../helpers/scripted-model";

const sub: Actor = { id: "u-sub", email: "submitter@example.com", name: "S", role: "submitter" };
const rev1: Actor = { id: "u-r1", email: "r1@example.com", name: "R1", role: "reviewer" };
const rev2: Actor = { id: "u-r2", email: "r2@example.com", name: "R2", role: "reviewer" };

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e) => (e instanceof HttpError ? { status: e.status, field: (e as { field?: string }).field } : { status: 500, field: String(e) }),
  );

describe.each(providers)("ask a human on %s", (provider) => {
  const h = databaseWithContext(provider);

  async function paused() {
    const { id } = await startRun(h.ctx, sub, { body: { agent: "account-setup", input: { company: "Acme" } } });
    await h.ctx.worker.idle();
    const view = await getRunView(h.ctx, rev1, { runId: id });
    return { id, q: view.approvals[0] };
  }

  it("a question is listed as one, answered with a form's object, and the model gets the answer", async () => {
    const { id, q } = await paused();
    expect(q).toMatchObject({ kind: "question", status: "pending", tool_name: "request_user_input", fallback: "deny" });
    expect(q.answerSchema).toMatchObject({ type: "object", required: ["plan", "seats"] });
    const item = (await listInbox({ db: h.t.db }, rev1, { query: {} })).approvals.find((a) => a.id === q.id);
    expect(item).toMatchObject({ kind: "question", summary: "Which plan and how many seats should Acme start with?" });

    // Answered or declined, never approved; the answer must fit the schema exactly.
    expect(await failure(decide(h.ctx, rev1, { approvalId: q.id, body: { decision: "approve" } }))).toEqual({
      status: 400,
      field: "decision",
    });
    expect(
      await failure(decide(h.ctx, rev1, { approvalId: q.id, body: { decision: "respond", answer: { plan: "team", seats: 0 } } })),
    ).toEqual({
      status: 400,
      field: "answer.seats",
    });
    expect(
      await failure(
        decide(h.ctx, rev1, { approvalId: q.id, body: { decision: "respond", answer: { plan: "team", seats: 3, admin: "me" } } }),
      ),
    ).toMatchObject({ status: 400 });
    expect(await failure(decide(h.ctx, rev1, { approvalId: q.id, body: { decision: "respond", reason: "team, 12" } }))).toEqual({
      status: 400,
      field: "answer.plan",
    });

    // Two reviewers answer at once: exactly one answer is taken.
    const answers = await Promise.all([
      failure(decide(h.ctx, rev1, { approvalId: q.id, body: { decision: "respond", answer: { plan: "team", seats: 12 } } })),
      failure(decide(h.ctx, rev2, { approvalId: q.id, body: { decision: "respond", answer: { plan: "starter", seats: 2 } } })),
    ]);
    expect(answers.filter((a) => a === null)).toHaveLength(1);
    expect(answers.find((a) => a !== null)).toMatchObject({ status: 409 });
    const winner = answers[0] === null ? { plan: "team", seats: 12 } : { plan: "starter", seats: 2 };

    await h.ctx.worker.idle();
    const done = await getRunView(h.ctx, rev1, { runId: id });
    expect(done.run.state).toBe("completed");
    expect(done.approvals[0]).toMatchObject({ status: "responded" });
    expect(done.approvals[0].decisions).toHaveLength(1);
    expect(done.approvals[0].decisions[0].answer).toEqual(winner);
    const result = JSON.parse(done.conversation!.messages.find((m) => m.role === "tool" && m.tool_call_id === "call_ask")!.content);
    expect(result).toMatchObject({ answered: true, answer: winner });
    expect(done.conversation!.messages.at(-1)?.content).toBe(`Set up Acme on ${winner.plan} with ${winner.seats} seats; welcome sent.`);
    expect(await h.t.db.outboxMessage.count({ where: { runId: id } })).toBe(1);
    const audit = await h.t.db.auditEvent.findMany({ where: { targetId: id, action: "approval.respond" } });
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0].data as string)).toMatchObject({ kind: "question", answer: winner });
  });

  it("a declined question reaches the model as declined, with the reason; nothing is sent", async () => {
    const { id, q } = await paused();
    expect(await failure(decide(h.ctx, rev1, { approvalId: q.id, body: { decision: "reject" } }))).toEqual({
      status: 400,
      field: "reason",
    });
    await decide(h.ctx, rev1, { approvalId: q.id, body: { decision: "reject", reason: "Ask sales first" } });
    await h.ctx.worker.idle();
    const done = await getRunView(h.ctx, rev1, { runId: id });
    expect(done.run.state).toBe("completed");
    expect(done.conversation!.messages.at(-1)?.content).toBe("Account for Acme not set up: Declined: Ask sales first.");
    expect(await h.t.db.outboxMessage.count({ where: { runId: id } })).toBe(0);
  });

  it("past its deadline a question expires even where the fallback is allow; a late answer is 409", async () => {
    const short = testContext(h.t.db, { config: { approvalTimeoutS: 1, approvalFallback: "allow" } });
    const { id } = await startRun(short, sub, { body: { agent: "account-setup", input: { company: "Initech" } } });
    await short.worker.idle();
    const q = (await getRunView(short, rev1, { runId: id })).approvals[0];
    const result = await sweep(short, Date.now() + 5_000);
    expect(result.expired).toBe(1);
    await short.worker.idle();
    const done = await getRunView(short, rev1, { runId: id });
    expect(done.approvals[0].status).toBe("expired");
    expect(done.conversation!.messages.at(-1)?.content).toBe("Account for Initech not set up: No answer before the deadline.");
    expect(
      await failure(decide(short, rev1, { approvalId: q.id, body: { decision: "respond", answer: { plan: "team", seats: 1 } } })),
    ).toMatchObject({
      status: 409,
    });
  });

  it("without an answer schema the answer is text; an object is 400", async () => {
    const model = scriptedModel("script", (turn, req) =>
      turn === 1
        ? { text: "asking", calls: [{ id: "q1", name: "ask_ops", args: { question: "Which region?" } }] }
        : { text: `got ${req.messages.find((m) => m.role === "tool")?.content}` },
    );
    const agent: Agent = {
      name: "asker",
      model: "script:ask",
      instructions: "",
      tools: [askHuman({ name: "ask_ops" })],
      inputSchema: z.object({}),
      toUserMessage: () => "go",
    };
    const ex = testContext(h.t.db, { agents: { asker: agent }, models: { script: model } });
    const { id } = await startRun(ex, sub, { body: { agent: "asker", input: {} } });
    await ex.worker.idle();
    const q = (await getRunView(ex, rev1, { runId: id })).approvals[0];
    expect(q).toMatchObject({ kind: "question", answerSchema: null });
    expect(await failure(decide(ex, rev1, { approvalId: q.id, body: { decision: "respond", answer: { region: "eu" } } }))).toEqual({
      status: 400,
      field: "answer",
    });
    // The answer completes the step: the run resumes by itself (the agent does not opt out).
    expect((await decide(ex, rev1, { approvalId: q.id, body: { decision: "respond", reason: "eu-west-1" } })).resumed).toBe(true);
    await ex.worker.idle();
    const done = await getRunView(ex, rev1, { runId: id });
    expect(done.conversation!.messages.at(-1)?.content).toBe('got {"answered":true,"answer":"eu-west-1","by":"r1@example.com"}');
  });
});
