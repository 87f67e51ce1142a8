// Durability on a real database, with two "instances" (two executors, each with its own Prisma client):
// one decision and one resume under 50 concurrent approvals, deadlines applied once by competing sweeps,
// a lost auto-resume recovered, retention that keeps what matters, and recovery after a crash.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { createDb, type Db } from "@/lib/db/client";
import type { Actor } from "@/lib/auth/actor";
import { HttpError } from "@/lib/auth/errors";
import { testContext } from "../helpers/context";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { timelinePage } from "@/lib/services/timeline";
import { sweep } from "@/lib/services/deadlines";
import { pruneCheckpoints } from "@/lib/execution/retention";
import { approvalIdOf, decideApproval, listCheckpoints } from "@/lib/runner";
import { sub } from "../helpers/actors";

const reviewer = (i: number): Actor => ({ id: `u-rev-${i}`, email: `rev${i}@example.com`, name: `R${i}`, role: "reviewer" });

describe.each(providers)("durability on %s", (provider) => {
  let t: TestDb;
  let db2: Db;
  let a: AppContext;
  let b: AppContext;
  beforeAll(async () => {
    t = await freshDatabase(provider);
    db2 = createDb(t.url);
    a = testContext(t.db);
    b = testContext(db2);
  });
  afterAll(async () => {
    await a?.worker.idle();
    await b?.worker.idle();
    await db2?.$disconnect();
    await t?.drop();
  });

  it("50 concurrent approvals across two instances: exactly one succeeds, the run resumes once", async () => {
    const { id } = await startRun(a, sub, {
      body: {
        agent: "deploy-bot",
        input: { service: "api", version: "9.0.0", environment: "staging" },
      },
    });
    await a.worker.idle();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        decide(i % 2 ? b : a, reviewer(i), { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } }).then(
          (r) => ({ ok: true as const, resumed: r.resumed }),
          (e) => ({ ok: false as const, status: e instanceof HttpError ? e.status : String(e) }),
        ),
      ),
    );
    await a.worker.idle();
    await b.worker.idle();
    const ok = results.filter((r) => r.ok);
    expect(ok).toHaveLength(1);
    expect(results.filter((r) => !r.ok).map((r) => (r as { status: unknown }).status)).toEqual(Array(49).fill(409));
    const phases = (await listCheckpoints(a.store, id, id)).map((c) => c.phase);
    expect(phases.filter((p) => p === "resumed")).toHaveLength(1);
    expect(phases.filter((p) => p === "run_terminal")).toHaveLength(1);
    expect(await t.db.deployment.count({ where: { runId: id } })).toBe(1);
    expect((await getRunView(a, reviewer(0), { runId: id })).run.state).toBe("completed");
  });

  it("deadlines: two competing sweeps apply each fallback once and resume the run once", async () => {
    const short = testContext(t.db, { config: { approvalTimeoutS: 1 } });
    const { id } = await startRun(short, sub, {
      body: {
        agent: "refund-desk",
        input: { order_id: "ORD-2002", amount_cents: 9000, reason: "Late" },
      },
    });
    await short.worker.idle();
    const later = Date.now() + 5_000;
    const [r1, r2] = await Promise.all([sweep(a, later), sweep(b, later)]);
    await a.worker.idle();
    await b.worker.idle();
    expect(r1.expired + r2.expired).toBe(2);
    expect(r1.resumed + r2.resumed).toBe(1);
    const view = await getRunView(a, reviewer(0), { runId: id });
    expect(view.run.state).toBe("completed");
    expect(view.approvals.map((x) => x.status)).toEqual(["expired", "expired"]);
    expect(await t.db.refund.count({ where: { runId: id } })).toBe(0);
    expect(await t.db.auditEvent.count({ where: { targetId: id, action: "approval.deadline_deny" } })).toBe(2);
    // A third sweep finds nothing to do.
    expect(await sweep(a, later + 1000)).toEqual({ expired: 0, resumed: 0, retried: 0, corrupt: 0 });
  });

  it("a decision whose auto-resume was lost is resumed by the sweep", async () => {
    const { id } = await startRun(a, sub, {
      body: {
        agent: "deploy-bot",
        input: { service: "web", version: "1.0.0", environment: "staging" },
      },
    });
    await a.worker.idle();
    // Decided straight in the store, as if the process died right after recording the decision.
    await decideApproval(a.store, id, await approvalIdOf(a.store, id, id, "call_deploy"), a.agents.get("deploy-bot").tools[1], {
      by: "rev@example.com",
      decision: "approve",
    });
    expect((await sweep(a)).resumed).toBe(1);
    await a.worker.idle();
    expect((await getRunView(a, reviewer(0), { runId: id })).run.state).toBe("completed");
  });

  it("retention prunes old terminal runs' checkpoints and keeps the terminal record, conversation, approvals and audit", async () => {
    const { id } = await startRun(a, sub, {
      body: {
        agent: "deploy-bot",
        input: { service: "old", version: "1.0.0", environment: "staging" },
      },
    });
    await a.worker.idle();
    await decide(a, reviewer(1), { approvalId: `${id}:2:call_deploy`, body: { decision: "approve" } });
    await a.worker.idle();
    const before = await listCheckpoints(a.store, id, id);
    const auditBefore = await t.db.auditEvent.count({ where: { targetId: id } });
    await t.db.run.update({ where: { id }, data: { finishedAt: new Date(Date.now() - 40 * 86_400_000) } });
    const fresh = await startRun(a, sub, { body: { agent: "support-writer", input: { customer: "A", question: "new" } } });
    await a.worker.idle();
    const r = await pruneCheckpoints(t.db, { olderThanDays: 30 });
    expect(r).toEqual({ runs: 1, checkpoints: before.length - 1 });
    const after = await listCheckpoints(a.store, id, id);
    expect(after.map((c) => c.phase)).toEqual(["run_terminal"]);
    const view = await getRunView(a, reviewer(1), { runId: id });
    expect(view.run).toMatchObject({ state: "completed", prunedCheckpoints: before.length - 1 });
    expect(view.conversation!.messages.length).toBeGreaterThan(3);
    expect(view.approvals.map((x) => x.status)).toEqual(["approved"]);
    expect(await t.db.auditEvent.count({ where: { targetId: id } })).toBe(auditBefore);
    const tl = await timelinePage({ db: t.db }, reviewer(1), { runId: id, query: {} });
    expect(tl.run.prunedCheckpoints).toBe(before.length - 1);
    // Resuming a pruned terminal run returns its stored result; nothing runs again.
    expect((await a.runtime.runner.resume(a.agents.get("deploy-bot"), { runId: id, threadId: id })).state).toBe("completed");
    expect(await t.db.deployment.count({ where: { runId: id } })).toBe(1);
    // The recent (paused) run is untouched.
    expect((await listCheckpoints(a.store, fresh.id, fresh.id)).length).toBeGreaterThan(5);
    expect((await pruneCheckpoints(t.db, { olderThanDays: 30 })).runs).toBe(0);
  });

  it("after a crash, the embedded server's recovery resumes runs left running", async () => {
    const crashing = testContext(t.db, { config: { failpoint: { at: "post_tool_batch", step: 1, action: "throw" } } });
    const { id } = await startRun(crashing, sub, {
      body: {
        agent: "refund-desk",
        input: { order_id: "ORD-2003", amount_cents: 100, reason: "Small" },
      },
    });
    await crashing.worker.idle();
    // A SIGKILL leaves the row saying "running" (the failpoint's bookkeeping said "failed"; undo that).
    await t.db.run.update({ where: { id }, data: { state: "running", error: null, finishedAt: null } });
    const orphanNoCheckpoint = await t.db.run.create({
      data: {
        id: "never-started",
        threadId: "never-started",
        agentName: "support-writer",
        state: "running",
        input: JSON.stringify({ customer: "B", question: "q" }),
      },
    });
    const restarted = testContext(t.db);
    expect(await restarted.executor.recover()).toBe(2);
    await restarted.worker.idle();
    // Below the threshold the refund needs no approval; notify still does, so the run pauses again.
    const view = await getRunView(restarted, reviewer(0), { runId: id });
    expect(view.run.state).toBe("paused");
    expect(await t.db.refund.count({ where: { runId: id } })).toBe(1);
    expect((await getRunView(restarted, reviewer(0), { runId: orphanNoCheckpoint.id })).run.state).toBe("paused");
  });
});
