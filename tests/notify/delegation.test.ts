// Delegation while away, on both databases: during the window the deputy is told of the reviewer's requests
// (email through a real SMTP server) and may decide what the reviewer could; outside it nothing changes; a
// request the reviewer could not decide (their own run) the deputy cannot either; set and clear audited;
// refused with 401, 403 and 400 naming the field.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import type { AppContext } from "@/lib/context";
import { EmailChannel } from "@/lib/notify/email";
import { decide } from "@/lib/services/decide";
import { clearMyDelegation, myDelegation, setMyDelegation } from "@/lib/services/delegation";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { type TestDb, freshDatabase, providers } from "../helpers/databases";
import { testContext } from "../helpers/context";
import { boss, failure, fin, ops, pausedRefund, settled, sub } from "../helpers/handoffs";
import { smtpServer } from "../helpers/smtp";

const dep: Actor = { id: "u-dep", email: "dep@example.com", name: "Dep", role: "reviewer", groups: [] };
const hour = 3600_000;
const window = (from: number, to: number) => ({
  deputy: dep.email,
  startsAt: new Date(Date.now() + from).toISOString(),
  endsAt: new Date(Date.now() + to).toISOString(),
});

describe.each(providers)("delegation on %s", (provider) => {
  let t: TestDb;
  let ctx: AppContext;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  beforeAll(async () => {
    t = await freshDatabase(provider);
    smtp = await smtpServer();
    for (const { groups, ...p } of [sub, fin, ops, boss, dep])
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

  const approve = (who: Actor, a: { id: string; argsHash: string }) =>
    decide(ctx, who, { approvalId: a.id, body: { decision: "approve", argsHash: a.argsHash } });
  const toldOf = (who: Actor, approvalId: string) => t.db.notification.count({ where: { userId: who.id, approvalId, status: "sent" } });

  it("refuses bad input and callers who may not (401, 403, 400 naming the field)", async () => {
    expect((await failure(setMyDelegation(ctx, null, { body: window(0, hour) }))).status).toBe(401);
    expect((await failure(setMyDelegation(ctx, sub, { body: window(0, hour) }))).status).toBe(403);
    expect((await failure(clearMyDelegation(ctx, null))).status).toBe(401);
    const cases: [unknown, string][] = [
      [{ ...window(0, hour), deputy: "nobody@example.com" }, "deputy"],
      [{ ...window(0, hour), deputy: sub.email }, "deputy"],
      [{ ...window(0, hour), deputy: fin.email }, "deputy"],
      [window(hour, 0), "endsAt"],
      [{ ...window(0, hour), startsAt: "tomorrow" }, "startsAt"],
    ];
    for (const [body, field] of cases)
      expect(await failure(setMyDelegation(ctx, fin, { body })), JSON.stringify(body)).toMatchObject({ status: 400, field });
    expect(await myDelegation(ctx, fin)).toBeNull();
  });

  it("during the window the deputy is told and decides what the reviewer could; audited", async () => {
    const set = await setMyDelegation(ctx, fin, { body: window(-hour, hour) });
    expect(set).toMatchObject({ deputy: dep.email, active: true });
    const audit = await t.db.auditEvent.findFirstOrThrow({ where: { action: "delegation.set", targetId: fin.id } });
    expect(JSON.parse(audit.data)).toMatchObject({ before: null, after: { deputy: dep.email } });

    const { runId, refund } = await pausedRefund(ctx, "ORD-7401");
    await settled(t, refund.id);
    // dep is in no group: only fin's delegation tells them of the finance-routed refund.
    expect(await toldOf(dep, refund.id)).toBe(1);
    expect(smtp.to(dep.email).some((m) => m.mail.text?.includes("Approve issue_refund"))).toBe(true);
    expect(await toldOf(ops, refund.id)).toBe(0);
    expect((await getRunView(ctx, dep, { runId })).approvals.find((a) => a.id === refund.id)?.canDecide).toBe(true);
    expect((await failure(approve(ops, refund))).status).toBe(403);
    expect((await approve(dep, refund)).approval.status).toBe("approved");
  }, 30_000);

  it("outside the window nothing changes: not told, 403", async () => {
    await setMyDelegation(ctx, fin, { body: window(24 * hour, 48 * hour) });
    const { runId, refund } = await pausedRefund(ctx, "ORD-7402");
    await settled(t, refund.id);
    await ctx.notifier!.sweep();
    expect(await toldOf(dep, refund.id)).toBe(0);
    expect((await getRunView(ctx, dep, { runId })).approvals.find((a) => a.id === refund.id)?.canDecide).toBe(false);
    expect(await failure(approve(dep, refund))).toMatchObject({
      status: 403,
      message: "This approval is routed to finance; you are in none of them",
    });
    await clearMyDelegation(ctx, fin);
    expect(await myDelegation(ctx, fin)).toBeNull();
    expect(await t.db.auditEvent.count({ where: { action: "delegation.clear", targetId: fin.id } })).toBe(1);
  }, 30_000);

  it("what the reviewer could not decide (their own run) the deputy cannot either", async () => {
    // boss (an admin, whom routing does not bind) is away and submitted the run: boss may not decide it, so dep may not.
    await setMyDelegation(ctx, boss, { body: window(-hour, hour) });
    const { id } = await startRun(ctx, boss, {
      body: { agent: "refund-desk", input: { order_id: "ORD-7403", amount_cents: 250_000, reason: "Lost" } },
    });
    await ctx.worker.idle();
    const refund = (await getRunView(ctx, fin, { runId: id })).approvals.find((a) => a.tool_name === "issue_refund")!;
    expect((await failure(approve(dep, refund))).status).toBe(403);
    // fin, in finance, still may.
    expect((await approve(fin, refund)).approval.status).toBe("approved");
    await clearMyDelegation(ctx, boss);
  }, 30_000);
});
