// Comments on a request, on both databases: stored as plain text, shown on the card, audited; the others who
// may decide it are told by email (real SMTP server) and the request's Slack message gets it in its thread
// (the Web API's wire format); the author and people who may not decide it are not told.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import type { AppContext } from "@/lib/context";
import { EmailChannel } from "@/lib/notify/email";
import { SlackChannel } from "@/lib/notify/slack/channel";
import { listComments, postComment } from "@/lib/services/handoffs";
import { getRunView } from "@/lib/services/run-view";
import { saveMyNotifySettings } from "@/lib/services/notifications";
import { type TestDb, freshDatabase, providers } from "../helpers/databases";
import { testContext } from "../helpers/context";
import { SlackWire } from "../helpers/slack-wire";
import { smtpServer } from "../helpers/smtp";
import { boss, failure, fin, fin2, ops, pausedRefund, settled, sub } from "../helpers/handoffs";

// What the request's card shows of its hand-offs (they come with the run view).
const handoffs = async (ctx: AppContext, who: Actor, runId: string, id: string) =>
  (await getRunView(ctx, who, { runId })).approvals.find((a) => a.id === id)?.handoffs;

const TOKEN = "xoxb-test-comments";

describe.each(providers)("comments on %s", (provider) => {
  let t: TestDb;
  let ctx: AppContext;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  const wire = new SlackWire(TOKEN, [
    { id: "UFIN", email: fin.email, name: "fin" },
    { id: "UFIN2", email: fin2.email, name: "fin2" },
  ]);
  beforeAll(async () => {
    t = await freshDatabase(provider);
    smtp = await smtpServer();
    await wire.start();
    for (const { groups, ...p } of [sub, fin, fin2, ops, boss])
      await t.db.user.create({ data: { ...p, groups: JSON.stringify(groups ?? []), passwordHash: "x" } });
    ctx = testContext(t.db, {
      notify: {
        channels: [
          new EmailChannel({ url: smtp.url, from: "afk@console.test" }),
          new SlackChannel({ token: TOKEN, signingSecret: "s".repeat(32), apiUrl: wire.apiUrl, channels: {} }),
        ],
        baseUrl: "https://console.test",
        burstMs: 0,
        pollMs: 100,
        gatherMs: 20,
      },
    });
    await saveMyNotifySettings(ctx, fin, {
      body: { channels: ["email", "slack"], digestMinutes: 0, quietStart: null, quietEnd: null, timeZone: "UTC" },
    });
    ctx.notifier!.start();
  });
  afterAll(async () => {
    ctx?.notifier?.stop();
    // A pass in flight finishes before the database goes.
    await ctx?.notifier?.drain().catch(() => {});
    await ctx?.worker.idle();
    await smtp?.close();
    await wire.stop();
    await t?.drop();
  });

  it("the other reviewers are told, the Slack message gets it in its thread, the card shows it; audited", async () => {
    const { runId, refund } = await pausedRefund(ctx, "ORD-7301");
    await settled(t, refund.id);
    // fin's direct message (conversations.open gives DFIN for UFIN).
    for (let i = 0; i < 200 && !wire.callsOf("chat.postMessage").some((c) => c.args.channel === "DFIN"); i++)
      await new Promise((r) => setTimeout(r, 50));
    await settled(t);
    const dmTs = (await t.db.notification.findFirstOrThrow({ where: { userId: fin.id, channel: "slack", status: "sent" } })).sentRef!;

    expect((await failure(postComment(ctx, null, { approvalId: refund.id, body: { text: "hi" } }))).status).toBe(401);
    expect((await failure(postComment(ctx, sub, { approvalId: refund.id, body: { text: "hi" } }))).status).toBe(403);
    expect(await failure(postComment(ctx, fin2, { approvalId: refund.id, body: { text: "x".repeat(2001) } }))).toMatchObject({
      status: 400,
      field: "text",
    });
    expect((await failure(listComments(ctx, null, { approvalId: refund.id }))).status).toBe(401);

    const text = "Customer called: <b>the parcel</b> arrived damaged";
    const r = await postComment(ctx, fin2, { approvalId: refund.id, body: { text } });
    expect(r.comment).toMatchObject({ seq: 1, by: fin2.email, byName: "Fin2", text });
    expect((await handoffs(ctx, ops, runId, refund.id))?.comments.map((c) => c.text)).toEqual([text]);
    const audit = await t.db.auditEvent.findFirstOrThrow({ where: { targetId: runId, action: "approval.comment" } });
    expect([audit.actorEmail, JSON.parse(audit.data)]).toEqual([fin2.email, { approval_id: refund.id, seq: 1, text }]);

    await smtp.waitFor(() => smtp.to(fin.email).some((m) => m.mail.subject?.startsWith("Comment from")));
    const mail = smtp.to(fin.email).find((m) => m.mail.subject?.startsWith("Comment from"))!;
    expect(mail.mail.subject).toBe("Comment from Fin2: Approve issue_refund (refund-desk)");
    expect(mail.mail.text).toContain(`Fin2 commented on this request:\n${text}`);
    // In the thread of fin's direct message, as plain text.
    const { c, ts } = JSON.parse(dmTs) as { c: string; ts: string };
    const reply = wire.callsOf("chat.postMessage").find((m) => m.args.thread_ts === ts)!;
    expect([reply.args.channel, reply.args.text]).toEqual([c, `Fin2 commented: ${text}`]);
    await settled(t);
    // Neither the author, nor ops and the admin (whom the finance routing does not reach), nor the submitter.
    for (const who of [fin2, ops, boss, sub])
      expect(
        smtp.to(who.email).filter((m) => m.mail.subject?.startsWith("Comment from")),
        who.email,
      ).toEqual([]);
    expect(await t.db.notification.count({ where: { approvalId: refund.id, kind: "comment" } })).toBe(2);
  }, 30_000);
});
