// Notification settings (each person's own) and the delivery log (admins). The dispatcher is lib/notify.
import "server-only";
import { z } from "zod";
import type { Actor } from "../auth/actor.ts";
import { ValidationError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import { appendAudit } from "../db/audit.ts";
import { deliveryLog, emailsOf, preferencesOf, savePreference } from "../db/notifications.ts";
import { type Preference, preferenceSchema, readPreference } from "../notify/schedule.ts";
import { parseOr400 } from "../validation.ts";
import { authorize } from "./access.ts";

type Ctx = Pick<AppContext, "db" | "notifier">;

/** The channels a person may choose: those this console has configured. */
const available = (ctx: Ctx) => ctx.notifier?.channelNames ?? [];

export type NotifySettingsView = { preference: Preference; channels: string[] };

export async function myNotifySettings(ctx: Ctx, actor: Actor | null): Promise<NotifySettingsView> {
  const who = authorize(actor);
  const [row] = await preferencesOf(ctx.db, [who.id]);
  const p = readPreference(row);
  // Only what this console has (the defaults name every channel): the form saves back what it shows.
  return { preference: { ...p, channels: p.channels.filter((c) => available(ctx).includes(c)) }, channels: available(ctx) };
}

export async function saveMyNotifySettings(ctx: Ctx, actor: Actor | null, { body }: { body: unknown }): Promise<NotifySettingsView> {
  const who = authorize(actor);
  const p = parseOr400(preferenceSchema, body);
  const unknown = p.channels.find((c) => !available(ctx).includes(c));
  if (unknown) throw new ValidationError("channels", `${unknown} is not configured on this console`);
  await savePreference(ctx.db, who.id, p);
  await appendAudit(ctx.db, { actor: who, action: "notify.preferences", targetType: "user", targetId: who.id, data: p });
  return { preference: p, channels: available(ctx) };
}

const logQuery = z.object({ status: z.enum(["pending", "sending", "sent", "failed", "skipped"]).optional() });

export type DeliveryView = {
  id: string;
  approvalId: string;
  runId: string;
  agent: string;
  tool: string;
  recipient: string;
  channel: string;
  kind: string;
  seq: number;
  status: string;
  attempts: number;
  lastError: string | null;
  dueAt: string;
  sentAt: string | null;
  createdAt: string;
};

/** The newest deliveries (admins): who was told what, on which channel, and how it went. */
export async function listDeliveries(ctx: Ctx, actor: Actor | null, { query }: { query: unknown }): Promise<DeliveryView[]> {
  authorize(actor, "users:manage");
  const q = parseOr400(logQuery, query);
  const rows = await deliveryLog(ctx.db, { status: q.status, take: 300 });
  const users = await emailsOf(
    ctx.db,
    rows.map((r) => r.userId),
  );
  return rows.map((r) => ({
    id: r.id,
    approvalId: r.approvalId,
    runId: r.runId,
    agent: r.agent,
    tool: r.tool,
    recipient: users.get(r.userId) ?? r.userId,
    channel: r.channel,
    kind: r.kind,
    seq: r.seq,
    status: r.status,
    attempts: r.attempts,
    lastError: r.lastError,
    dueAt: r.dueAt.toISOString(),
    sentAt: r.sentAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
  }));
}
