// What real clients and real databases do to the console: retried starts, two reviewers editing one
// approval, an audit write that fails mid-decision, a policy that changed while a run was paused. Real
// SQLite file and PostgreSQL server; database triggers play the failures.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { scriptedModel } from "../helpers/scripted-model";
import type { Actor } from "@/lib/auth/actor";
import { HttpError } from "@/lib/auth/errors";
import { manualResume } from "../helpers/agents";
import { testContext } from "../helpers/context";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { listInbox } from "@/lib/services/inbox";
import { resumeRun } from "@/lib/services/operate";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { actorFromToken } from "@/lib/auth/tokens";
import { createToken } from "@/lib/services/tokens";
import { type Agent, defineTool, getApproval } from "@/lib/runner";
import { op, sub } from "../helpers/actors";

const rev1: Actor = { id: "u-r1", email: "r1@example.com", name: "R1", role: "reviewer" };
const rev2: Actor = { id: "u-r2", email: "r2@example.com", name: "R2", role: "reviewer" };

const statusOf = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e) => (e instanceof HttpError ? e.status : 500),
  );

async function failAuditInserts(t: TestDb, on: boolean) {
  if (t.name === "sqlite") {
    if (on)
      await t.db.$executeRawUnsafe(
        `CREATE TRIGGER audit_down BEFORE INSERT ON "AuditEvent" BEGIN SELECT RAISE(ABORT, 'audit log unavailable'); END`,
      );
    else await t.db.$executeRawUnsafe(`DROP TRIGGER audit_down`);
    return;
  }
  if (on) {
    await t.db.$executeRawUnsafe(
      `CREATE OR REPLACE FUNCTION audit_down() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'audit log unavailable'; END $$ LANGUAGE plpgsql`,
    );
    await t.db.$executeRawUnsafe(`CREATE TRIGGER audit_down BEFORE INSERT ON "AuditEvent" FOR EACH ROW EXECUTE FUNCTION audit_down()`);
  } else await t.db.$executeRawUnsafe(`DROP TRIGGER audit_down ON "AuditEvent"`);
}

describe.each(providers)("real conditions on %s", (provider) => {
  let t: TestDb;
  let ex: AppContext;
  beforeAll(async () => {
    t = await freshDatabase(provider);
    ex = testContext(t.db, { agents: manualResume(t.db, "refund-desk") });
  });
  afterAll(async () => {
    await ex?.worker.idle();
    await t?.drop();
  });

  it("a retried start with the same Idempotency-Key returns the first run; a different body is 409; a bad key is 400", async () => {
    const body = { agent: "deploy-bot", input: { service: "web", version: "1.0.0", environment: "staging" } };
    const [a, b] = await Promise.all([
      startRun(ex, sub, { body, idempotencyKey: "k-123" }),
      startRun(ex, sub, { body, idempotencyKey: "k-123" }),
    ]);
    const c = await startRun(ex, sub, { body, idempotencyKey: "k-123" });
    expect(new Set([a.id, b.id, c.id]).size).toBe(1);
    expect(c.replayed).toBe(true);
    expect(await t.db.run.count({ where: { submittedById: sub.id, agentName: "deploy-bot" } })).toBe(1);
    expect(await t.db.auditEvent.count({ where: { action: "run.start", targetId: a.id } })).toBe(1);
    // The key is the caller's: another user's same key is another run.
    const other = await startRun(ex, { ...sub, id: "u-sub2", email: "sub2@example.com" }, { body, idempotencyKey: "k-123" });
    expect(other.id).not.toBe(a.id);
    const conflict = await startRun(ex, sub, {
      body: { ...body, input: { ...body.input, version: "2.0.0" } },
      idempotencyKey: "k-123",
    }).catch((e) => e);
    expect(conflict).toMatchObject({ status: 409 });
    const bad = await startRun(ex, sub, { body, idempotencyKey: "has space" }).catch((e) => e);
    expect(bad).toMatchObject({ status: 400, field: "Idempotency-Key" });
    await ex.worker.idle();
  });

  it("a decision made on arguments another reviewer edited meanwhile is 409 with the current state; a plain approve never adopts an edit", async () => {
    const { id } = await startRun(ex, sub, {
      body: {
        agent: "deploy-bot",
        input: { service: "api", version: "1.0.0", environment: "production" },
      },
    });
    await ex.worker.idle();
    const seen = (await listInbox({ db: t.db }, rev1, { query: {} })).approvals.find((a) => a.runId === id)!;
    expect(seen.id).toBe(`${id}:2:call_deploy`);
    // Reviewer 1 edits the version; reviewer 2 still looks at the old arguments.
    await decide(ex, rev1, {
      approvalId: seen.id,
      body: {
        decision: "approve",
        args: { service: "api", version: "1.0.1", environment: "production" },
        argsHash: seen.argsHash,
      },
    });
    const stale = await decide(ex, rev2, { approvalId: seen.id, body: { decision: "approve", argsHash: seen.argsHash } }).catch((e) => e);
    expect(stale).toMatchObject({ status: 409 });
    expect((stale as { current: { approved_args: unknown } }).current.approved_args).toMatchObject({ version: "1.0.1" });
    const plain = await decide(ex, rev2, { approvalId: seen.id, body: { decision: "approve" } }).catch((e) => e);
    expect(plain).toMatchObject({ status: 409 });
    // Looking again, reviewer 2 approves the edit knowingly; the quorum is met and the run resumes by itself.
    const now = (await listInbox({ db: t.db }, rev2, { query: {} })).approvals.find((a) => a.runId === id)!;
    expect(now.argsHash).not.toBe(seen.argsHash);
    expect((await decide(ex, rev2, { approvalId: now.id, body: { decision: "approve", argsHash: now.argsHash } })).resumed).toBe(true);
    await ex.worker.idle();
    expect((await t.db.deployment.findMany({ where: { runId: id } })).map((d) => d.version)).toEqual(["1.0.1"]);
  });

  it("a decision and its audit entry commit together: with the audit log failing, the decision is not stored", async () => {
    const { id } = await startRun(ex, sub, {
      body: {
        agent: "deploy-bot",
        input: { service: "cdn", version: "1.0.0", environment: "staging" },
      },
    });
    await ex.worker.idle();
    await failAuditInserts(t, true);
    try {
      expect(await statusOf(decide(ex, rev1, { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } }))).toBe(500);
    } finally {
      await failAuditInserts(t, false);
    }
    const rec = await getApproval(ex.store, id, `${id}:2:call_deploy`);
    expect(rec).toMatchObject({ status: "pending", decisions: [] });
    const row = await t.db.run.findUniqueOrThrow({ where: { id } });
    expect(row.state).toBe("paused");
    // Once the audit log answers, the same decision goes through, audited once, and the run resumes.
    expect((await decide(ex, rev1, { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } })).resumed).toBe(true);
    await ex.worker.idle();
    expect(await t.db.auditEvent.count({ where: { targetId: id, action: "approval.approve" } })).toBe(1);
    expect(await t.db.auditEvent.count({ where: { targetId: id, action: "run.auto_resume" } })).toBe(1);
  });

  it("a resume and its audit entry commit together", async () => {
    // An agent that waits for its Resume once its calls are decided.
    const { id } = await startRun(ex, sub, {
      body: {
        agent: "refund-desk-manual",
        input: { order_id: "ORD-4242", amount_cents: 9000, reason: "broken" },
      },
    });
    await ex.worker.idle();
    await decide(ex, rev1, { approvalId: `${id}:2:call_refund`, body: { decision: "approve" } });
    await decide(ex, rev1, { approvalId: `${id}:2:call_notify`, body: { decision: "approve" } });
    await failAuditInserts(t, true);
    try {
      expect(await statusOf(resumeRun(ex, op, { runId: id }))).toBe(500);
    } finally {
      await failAuditInserts(t, false);
    }
    expect((await t.db.run.findUniqueOrThrow({ where: { id } })).state).toBe("paused");
    await resumeRun(ex, op, { runId: id });
    await ex.worker.idle();
    expect((await getRunView(ex, op, { runId: id })).run.state).toBe("completed");
    expect(await t.db.auditEvent.count({ where: { targetId: id, action: "run.resume" } })).toBe(1);
    expect(await t.db.refund.count({ where: { runId: id } })).toBe(1);
  });

  it("a rejection binds: a policy that allows the tool by the time the run resumes does not execute it", async () => {
    const executions: string[] = [];
    const pay = defineTool({
      name: "pay",
      description: "pay",
      schema: z.object({ amount: z.number() }),
      async execute(_a, ctx) {
        executions.push(ctx.toolCallId);
        return { paid: true };
      },
    });
    const model = scriptedModel("script", (turn) => ({
      text: turn === 1 ? "paying" : "done",
      calls: turn === 1 ? [{ id: "p1", name: "pay", args: { amount: 500 } }] : [],
    }));
    const strict: Agent = {
      name: "payer",
      model: "script:pay",
      instructions: "",
      tools: [pay],
      inputSchema: z.object({}),
      toUserMessage: () => "pay",
      policy: [{ id: "pay", tool: "pay", action: "require_approval", reason: "payments are reviewed" }],
      // Resumed after the redeploy below, by an operator.
      autoResume: false,
    };
    const lax: Agent = { ...strict, policy: [] };
    const before = testContext(t.db, { agents: { payer: strict }, models: { script: model } });
    const { id } = await startRun(before, sub, { body: { agent: "payer", input: {} } });
    await before.worker.idle();
    await decide(before, rev1, { approvalId: `${id}:1:p1`, body: { decision: "reject", reason: "not this one" } });
    // The app is redeployed with a policy that no longer asks; the rejected call still does not run.
    const after = testContext(t.db, { agents: { payer: lax }, models: { script: model } });
    await resumeRun(after, op, { runId: id });
    await after.worker.idle();
    const view = await getRunView(after, op, { runId: id });
    expect(view.run.state).toBe("completed");
    expect(executions).toEqual([]);
    expect(view.conversation!.messages.find((m) => m.role === "tool")?.content).toContain("not this one");
  });

  it("API tokens made for a user act as that user: two tokens of one reviewer are one reviewer for a quorum", async () => {
    const admin: Actor = { id: "u-admin", email: "admin@example.com", name: "A", role: "admin" };
    const user = await t.db.user.create({ data: { email: "pat@example.com", name: "Pat", role: "reviewer", passwordHash: "x" } });
    const one = await createToken({ db: t.db }, admin, { body: { name: "pat-laptop", role: "reviewer", userId: user.id } });
    const two = await createToken({ db: t.db }, admin, { body: { name: "pat-ci", role: "reviewer", userId: user.id } });
    expect(await createToken({ db: t.db }, admin, { body: { name: "bad", role: "admin", userId: user.id } }).catch((e) => e)).toMatchObject(
      {
        status: 400,
        field: "role",
      },
    );
    const a1 = (await actorFromToken(t.db, one.token))!;
    const a2 = (await actorFromToken(t.db, two.token))!;
    expect([a1.id, a1.email, a2.id, a2.email]).toEqual([user.id, "pat@example.com", user.id, "pat@example.com"]);
    const { id } = await startRun(ex, sub, {
      body: {
        agent: "deploy-bot",
        input: { service: "edge", version: "1.0.0", environment: "production" },
      },
    });
    await ex.worker.idle();
    expect((await decide(ex, a1, { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } })).approval.status).toBe("pending");
    expect(await statusOf(decide(ex, a2, { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } }))).toBe(409);
    expect((await decide(ex, rev1, { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } })).resumed).toBe(true);
    await ex.worker.idle();
    // Disabled, the user's tokens stop working.
    await t.db.user.update({ where: { id: user.id }, data: { disabled: true } });
    expect(await actorFromToken(t.db, one.token)).toBeNull();
  });
});
