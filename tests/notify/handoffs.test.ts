// Hand-offs on both databases, with email through a real SMTP server: a pending request reassigned to a
// person or a group is decidable by them only (others 403), audited with before and after, the new reviewer
// told; refused with 400 naming the field, 401, 403, 404 and 409 (already decided, with its state).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import type { AppContext } from "@/lib/context";
import { EmailChannel } from "@/lib/notify/email";
import { decide } from "@/lib/services/decide";
import { reassign } from "@/lib/services/handoffs";
import { getRunView } from "@/lib/services/run-view";
import { type TestDb, freshDatabase, providers } from "../helpers/databases";
import { testContext } from "../helpers/context";
import { smtpServer } from "../helpers/smtp";
import { boss, everyone, failure, fin, fin2, ops, pausedRefund, settled, sub } from "../helpers/handoffs";

// What the request's card shows of its hand-offs (they come with the run view).
const handoffs = async (ctx: AppContext, who: Actor, runId: string, id: string) =>
  (await getRunView(ctx, who, { runId })).approvals.find((a) => a.id === id)?.handoffs;

describe.each(providers)("reassigning a request on %s", (provider) => {
  let t: TestDb;
  let ctx: AppContext;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  beforeAll(async () => {
    t = await freshDatabase(provider);
    smtp = await smtpServer();
    for (const { groups, ...p } of everyone)
      await t.db.user.create({ data: { ...p, groups: JSON.stringify(groups ?? []), passwordHash: "x" } });
    ctx = testContext(t.db, {
      notify: {
        channels: [new EmailChannel({ url: smtp.url, from: "afk@console.test" })],
        baseUrl: "https://console.test",
        burstMs: 0,
        pollMs: 100,
        gatherMs: 20,
      },
    });
    ctx.notifier!.start();
  });
  afterAll(async () => {
    ctx?.notifier?.stop();
    // A pass in flight finishes before the database goes.
    await ctx?.notifier?.drain().catch(() => {});
    await ctx?.worker.idle();
    await smtp?.close();
    await t?.drop();
  });

  it("to a person: only they decide it; audited before/after; they are told; then 409 with the state", async () => {
    const { runId, refund } = await pausedRefund(ctx, "ORD-7101");
    // Who may not reassign: no caller, a role that does not decide, a reviewer outside its routing.
    expect((await failure(reassign(ctx, null, { approvalId: refund.id, body: { email: ops.email } }))).status).toBe(401);
    expect((await failure(reassign(ctx, sub, { approvalId: refund.id, body: { email: ops.email } }))).status).toBe(403);
    expect(await failure(reassign(ctx, ops, { approvalId: refund.id, body: { email: ops.email } }))).toMatchObject({
      status: 403,
      message: "Only someone who may decide this request (or an admin) may reassign it",
    });
    expect((await handoffs(ctx, ops, runId, refund.id))?.canReassign).toBe(false);
    expect((await handoffs(ctx, fin, runId, refund.id))?.canReassign).toBe(true);

    // (The run's first messages out first: due together, they would share one digest.)
    await settled(t, refund.id);
    const r = await reassign(ctx, fin, { approvalId: refund.id, body: { email: "OPS@example.com", reason: "Ops knows this customer" } });
    expect(r.assignment).toMatchObject({ to: "ops@example.com", toKind: "person", by: fin.email, reason: "Ops knows this customer" });
    // Finance no longer decides it, ops (outside finance) now does; the card says so.
    for (const who of [fin, fin2])
      expect(
        await failure(decide(ctx, who, { approvalId: refund.id, body: { decision: "approve", argsHash: refund.argsHash } })),
      ).toMatchObject({
        status: 403,
        message: "This request was reassigned to ops@example.com; only they may decide it",
      });
    const canDecide = async (who: Actor) => (await getRunView(ctx, who, { runId })).approvals.find((x) => x.id === refund.id)?.canDecide;
    expect([await canDecide(fin), await canDecide(ops)]).toEqual([false, true]);
    expect(await handoffs(ctx, ops, runId, refund.id))?.toMatchObject({
      assignment: { to: "ops@example.com", by: fin.email },
      canReassign: true,
    });
    const audit = await t.db.auditEvent.findFirstOrThrow({ where: { targetId: runId, action: "approval.reassign" } });
    expect([audit.actorEmail, JSON.parse(audit.data)]).toEqual([
      fin.email,
      { approval_id: refund.id, tool: "issue_refund", before: ["finance"], after: "ops@example.com", reason: "Ops knows this customer" },
    ]);
    await smtp.waitFor(() => smtp.to(ops.email).some((m) => m.mail.subject?.startsWith("Reassigned to you")));
    const told = smtp.to(ops.email).find((m) => m.mail.subject?.startsWith("Reassigned to you"))!;
    expect(told.mail.subject).toBe("Reassigned to you: Approve issue_refund (refund-desk)");
    expect(told.mail.text).toContain("fin@example.com reassigned this request to you: Ops knows this customer");

    const decided = await decide(ctx, ops, { approvalId: refund.id, body: { decision: "approve", argsHash: refund.argsHash } });
    expect(decided.approval.status).toBe("approved");
    const late = await failure(reassign(ctx, boss, { approvalId: refund.id, body: { group: "finance" } }));
    expect(late).toMatchObject({ status: 409, message: "This request is already approved" });
    expect(late.current).toMatchObject({ id: refund.id, status: "approved" });
    expect(await t.db.auditEvent.count({ where: { targetId: runId, action: "approval.reassign" } })).toBe(1);
  }, 30_000);

  it("to a group: its members decide it, the old group does not; an admin may reassign", async () => {
    const { refund } = await pausedRefund(ctx, "ORD-7102");
    await reassign(ctx, boss, { approvalId: refund.id, body: { group: "ops" } });
    expect(
      (await failure(decide(ctx, fin, { approvalId: refund.id, body: { decision: "approve", argsHash: refund.argsHash } }))).status,
    ).toBe(403);
    const ok = await decide(ctx, ops, {
      approvalId: refund.id,
      body: { decision: "reject", reason: "Not ours", argsHash: refund.argsHash },
    });
    expect(ok.approval.status).toBe("rejected");
  }, 30_000);

  it("bad input: 400 naming the field, 404 for no such request; nothing recorded", async () => {
    const { runId, refund } = await pausedRefund(ctx, "ORD-7103");
    const cases: [unknown, string][] = [
      [{}, "email"],
      [{ email: "not-an-email" }, "email"],
      [{ email: ops.email, group: "ops" }, "email"],
      [{ email: "nobody@example.com" }, "email"],
      [{ email: sub.email }, "email"],
      [{ group: "Bad Group!" }, "group"],
      [{ group: "legal" }, "group"],
      [{ email: ops.email, reason: "x".repeat(2001) }, "reason"],
      [{ email: ops.email, extra: 1 }, ""],
    ];
    for (const [body, field] of cases) {
      const f = await failure(reassign(ctx, fin, { approvalId: refund.id, body }));
      expect(f.status, JSON.stringify(body)).toBe(400);
      if (field) expect(f.field, JSON.stringify(body)).toBe(field);
    }
    expect((await failure(reassign(ctx, fin, { approvalId: `${runId}:9:nope`, body: { email: ops.email } }))).status).toBe(404);
    expect((await failure(reassign(ctx, fin, { approvalId: "run-missing:1:x", body: { email: ops.email } }))).status).toBe(404);
    expect(await t.db.approvalAssignment.count({ where: { approvalId: refund.id } })).toBe(0);
  }, 30_000);
});
