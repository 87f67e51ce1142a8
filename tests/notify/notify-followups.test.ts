// Reminders and escalation from a policy rule's `notify` settings, by email through a real SMTP server:
// the reviewers are reminded after a share of the time to decide (at most maxReminders times), the
// fallback person is told later, each is audited; a person's digest period and quiet hours are kept.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentFiles } from "@/agents/index";
import type { Actor } from "@/lib/auth/actor";
import type { AppContext } from "@/lib/context";
import { loadAgents } from "@/lib/agents/load";
import { env } from "@/lib/env";
import { EmailChannel } from "@/lib/notify/email";
import { afterQuietHours, dueFor } from "@/lib/notify/schedule";
import type { Agent } from "@/lib/runner/index";
import { myNotifySettings, saveMyNotifySettings } from "@/lib/services/notifications";
import { startRun } from "@/lib/services/start";
import { type TestDb, freshDatabase, providers } from "../helpers/databases";
import { testContext } from "../helpers/context";
import { smtpServer } from "../helpers/smtp";

const people = [
  { id: "u-boss", email: "boss@example.com", name: "Boss", role: "admin", groups: [] },
  { id: "u-fin", email: "fin@example.com", name: "Fin", role: "reviewer", groups: ["finance"] },
  { id: "u-chief", email: "chief@example.com", name: "Chief", role: "admin", groups: [] },
];
const boss: Actor = { id: "u-boss", email: "boss@example.com", name: "Boss", role: "admin" };
const fin: Actor = { id: "u-fin", email: "fin@example.com", name: "Fin", role: "reviewer", groups: ["finance"] };

function remindingRefunds(db: () => TestDb["db"]): Record<string, Agent> {
  const loaded = loadAgents(agentFiles, { db, idempotentTools: true, dataDir: path.resolve(env().AFK_DATA_DIR) });
  const base = loaded.startable["refund-desk"]!;
  const policy = base.policy?.map((r) =>
    r.id === "refund-large"
      ? {
          ...r,
          approvalTimeoutS: 8,
          notify: { remindAfter: 0.25, maxReminders: 2, escalateAfter: 0.75, escalateTo: ["chief@example.com"] },
        }
      : r,
  );
  return { "refund-remind": { ...base, name: "refund-remind", policy } };
}

describe.each(providers)("reminders and escalation on %s", (provider) => {
  let t: TestDb;
  let ctx: AppContext;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  beforeAll(async () => {
    t = await freshDatabase(provider);
    smtp = await smtpServer();
    for (const { groups, ...p } of people) await t.db.user.create({ data: { ...p, groups: JSON.stringify(groups), passwordHash: "x" } });
    ctx = testContext(t.db, {
      agents: remindingRefunds(() => t.db),
      notify: {
        channels: [new EmailChannel({ url: smtp.url, from: "afk@console.test" })],
        baseUrl: "https://console.test",
        burstMs: 0,
        pollMs: 100,
        gatherMs: 20,
      },
    });
  });
  afterAll(async () => {
    ctx?.notifier?.stop();
    await ctx?.worker.idle();
    await smtp?.close();
    await t?.drop();
  });

  it("reminds the reviewers twice, then tells the fallback person; each is audited", async () => {
    ctx.notifier!.start();
    const { id } = await startRun(ctx, boss, {
      body: { agent: "refund-remind", input: { order_id: "ORD-7001", amount_cents: 250_000, reason: "Lost" } },
    });
    await ctx.worker.idle();
    const subjects = (email: string) => smtp.to(email).map((m) => m.mail.subject);
    await smtp.waitFor(
      () =>
        smtp.to("chief@example.com").some((m) => m.mail.subject?.startsWith("Escalated")) &&
        smtp.to("fin@example.com").some((m) => m.mail.subject?.startsWith("Reminder 2")),
      20_000,
    );
    const finSubjects = subjects("fin@example.com");
    expect(finSubjects[0]).toBe("2 requests wait for your decision");
    // Two reminders (one message when a busy machine made both due at once), then nothing more for fin.
    const reminders = finSubjects.slice(1);
    expect(reminders.length).toBeGreaterThanOrEqual(1);
    expect(reminders.length).toBeLessThanOrEqual(2);
    for (const r of reminders) expect(r).toMatch(/^Reminder [12]: Approve issue_refund \(refund-remind\)$/);
    expect(reminders.at(-1)).toBe("Reminder 2: Approve issue_refund (refund-remind)");
    // The chief may decide (an admin), was not told before, and is told once, as an escalation.
    expect(subjects("chief@example.com").filter((s) => s?.includes("issue_refund"))).toEqual([
      "Escalated to you: Approve issue_refund (refund-remind)",
    ]);
    expect(smtp.to("chief@example.com").find((m) => m.mail.subject?.startsWith("Escalated"))!.mail.text).toContain("it was with finance");
    // The reminders came after a quarter and a half of the 8 s, the escalation after three quarters.
    const requested = (await t.db.notification.findFirst({ where: { runId: id, tool: "issue_refund" } }))!.requestedAt.getTime();
    expect(smtp.to("fin@example.com")[1].at - requested).toBeGreaterThanOrEqual(2000);
    expect(smtp.to("fin@example.com").at(-1)!.at - requested).toBeGreaterThanOrEqual(4000);
    // Audited just after the server's reply.
    const audited = { targetId: id, action: { in: ["approval.reminded", "approval.escalated"] } };
    for (let i = 0; i < 100 && (await t.db.auditEvent.count({ where: audited })) < 3; i++) await new Promise((r) => setTimeout(r, 50));
    const audit = await t.db.auditEvent.findMany({
      where: { targetId: id, action: { in: ["approval.reminded", "approval.escalated"] } },
      orderBy: { at: "asc" },
    });
    expect(audit.map((a) => [a.action, JSON.parse(a.data).to])).toEqual([
      ["approval.reminded", "fin@example.com"],
      ["approval.reminded", "fin@example.com"],
      ["approval.escalated", "chief@example.com"],
    ]);
    // The submitter (boss) never hears of their own request.
    expect(smtp.to("boss@example.com")).toEqual([]);
  }, 30_000);

  it("settings: a person who never saved any sees the defaults on this console's channels, and saving them back works", async () => {
    const shown = await myNotifySettings(ctx, boss);
    expect(shown.channels).toEqual(["email"]);
    expect(shown.preference.channels).toEqual(["email"]);
    expect((await saveMyNotifySettings(ctx, boss, { body: shown.preference })).preference.channels).toEqual(["email"]);
  });

  it("settings: a digest every 15 minutes and quiet hours in the person's time zone", async () => {
    const saved = await saveMyNotifySettings(ctx, fin, {
      body: { channels: ["email"], digestMinutes: 15, quietStart: "22:00", quietEnd: "07:00", timeZone: "Europe/Berlin" },
    });
    expect(saved.preference.digestMinutes).toBe(15);
    // 12:05 UTC → the 12:15 digest; 22:30 Berlin (21:30 UTC in winter) waits for 07:00 Berlin (06:00 UTC).
    expect(dueFor(saved.preference, new Date("2026-12-07T12:05:00Z")).toISOString()).toBe("2026-12-07T12:15:00.000Z");
    expect(afterQuietHours(saved.preference, new Date("2026-12-07T21:30:00Z")).toISOString()).toBe("2026-12-08T06:00:00.000Z");
    expect(afterQuietHours(saved.preference, new Date("2026-12-07T06:59:00Z")).toISOString()).toBe("2026-12-07T06:59:00.000Z");
    // Bad input: 400 naming the field; an unconfigured channel is refused.
    await expect(
      saveMyNotifySettings(ctx, fin, {
        body: { channels: ["email"], digestMinutes: 0, quietStart: "25:00", quietEnd: "07:00", timeZone: "UTC" },
      }),
    ).rejects.toMatchObject({
      status: 400,
      field: "quietStart",
    });
    await expect(
      saveMyNotifySettings(ctx, fin, {
        body: { channels: ["pager"], digestMinutes: 0, quietStart: null, quietEnd: null, timeZone: "UTC" },
      }),
    ).rejects.toMatchObject({
      status: 400,
      field: "channels",
    });
    await expect(saveMyNotifySettings(ctx, null, { body: {} })).rejects.toMatchObject({ status: 401 });
  });
});
