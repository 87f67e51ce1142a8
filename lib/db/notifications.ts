// The notification outbox (lib/notify plans and sends): rows keyed by (approval, user, channel, kind, seq),
// claimed by one instance at a time with a token and a time limit, and people's notification preferences.
import { randomUUID } from "node:crypto";
import type { Db } from "./client.ts";

export type PlannedNotification = {
  approvalId: string;
  runId: string;
  threadId: string;
  agent: string;
  tool: string;
  userId: string;
  channel: string;
  kind: "request" | "reminder" | "escalation" | "reassigned" | "comment";
  seq: number;
  dueAt: Date;
  requestedAt: Date;
};

const keyOf = (r: { approvalId: string; userId: string; channel: string; kind: string; seq: number }) =>
  `${r.approvalId}\u0000${r.userId}\u0000${r.channel}\u0000${r.kind}\u0000${r.seq}`;

/**
 * Writes the rows not written yet; a row another instance wrote first (the unique key) is left as it is.
 * Returns how many this call wrote.
 */
export async function planNotifications(db: Db, rows: PlannedNotification[]): Promise<number> {
  if (!rows.length) return 0;
  const approvalIds = [...new Set(rows.map((r) => r.approvalId))];
  const existing = new Set<string>();
  for (let i = 0; i < approvalIds.length; i += 500) {
    const have = await db.notification.findMany({
      where: { approvalId: { in: approvalIds.slice(i, i + 500) } },
      select: { approvalId: true, userId: true, channel: true, kind: true, seq: true },
    });
    for (const h of have) existing.add(keyOf(h));
  }
  const missing = rows.filter((r) => !existing.has(keyOf(r)));
  if (!missing.length) return 0;
  // One statement, so a sender never sees half of a plan (the rows of one pause go out as one message);
  // when another instance wrote some of them first, each row on its own.
  try {
    return (await db.notification.createMany({ data: missing.map((r) => ({ ...r, status: "pending" })) })).count;
  } catch (e) {
    if ((e as { code?: string }).code !== "P2002") throw e;
  }
  let wrote = 0;
  for (const r of missing) {
    try {
      await db.notification.create({ data: { ...r, status: "pending" }, select: { id: true } });
      wrote++;
    } catch (e) {
      if ((e as { code?: string }).code !== "P2002") throw e;
    }
  }
  return wrote;
}

const claimable = (now: Date) => ({
  OR: [{ status: "pending" }, { status: "sending", claimUntil: { lt: now } }],
  dueAt: { lte: now },
});

/** The (user, channel) pairs with something due now. */
export async function dueRecipients(db: Db, now: Date, take = 500) {
  return db.notification.findMany({
    where: claimable(now),
    distinct: ["userId", "channel"],
    select: { userId: true, channel: true },
    take,
  });
}

/** When the user was last sent anything on the channel (null: never). */
export async function lastSentTo(db: Db, userId: string, channel: string): Promise<Date | null> {
  const row = await db.notification.findFirst({
    where: { userId, channel, status: "sent" },
    orderBy: { sentAt: "desc" },
    select: { sentAt: true },
  });
  return row?.sentAt ?? null;
}

/**
 * Claims everything due for one (user, channel) for `holdMs`: one UPDATE, so of two instances claiming at
 * once exactly one gets each row. Returns the rows this call claimed and its token.
 */
export async function claimDue(db: Db, userId: string, channel: string, now: Date, holdMs: number) {
  const token = randomUUID();
  const n = await db.notification.updateMany({
    where: { userId, channel, ...claimable(now) },
    data: { status: "sending", claimToken: token, claimUntil: new Date(now.getTime() + holdMs) },
  });
  if (!n.count) return { token, rows: [] };
  const rows = await db.notification.findMany({ where: { claimToken: token }, orderBy: [{ requestedAt: "asc" }, { id: "asc" }] });
  return { token, rows };
}

export type NotificationRow = Awaited<ReturnType<typeof claimDue>>["rows"][number];

/** The outcome of a claim's rows, written only while this claim still holds them. */
export async function settleClaimed(
  db: Db,
  token: string,
  ids: string[],
  data:
    | { status: "sent"; messageKey: string; sentRef: string | null; sentAt: Date }
    | { status: "skipped"; lastError: string }
    | { status: "pending" | "failed"; lastError: string; dueAt: Date; attempts: number },
) {
  return db.notification.updateMany({
    where: { id: { in: ids }, claimToken: token },
    data: { ...data, claimToken: null, claimUntil: null },
  });
}

/** Of these approvals, those some message already reached (a request's first notification is measured once). */
export const alreadySent = async (db: Db, approvalIds: string[]) =>
  new Set(
    (
      await db.notification.findMany({
        where: { approvalId: { in: [...new Set(approvalIds)] }, status: "sent" },
        distinct: ["approvalId"],
        select: { approvalId: true },
      })
    ).map((r) => r.approvalId),
  );

/** Future reminders and escalations of approvals no longer waiting are dropped. */
export const skipPendingOf = (db: Db, approvalId: string, why: string) =>
  db.notification.updateMany({ where: { approvalId, status: "pending" }, data: { status: "skipped", lastError: why } });

/** The delivery log, newest first. */
export function deliveryLog(db: Db, opts: { take?: number; status?: string } = {}) {
  return db.notification.findMany({
    where: opts.status ? { status: opts.status } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: Math.min(opts.take ?? 200, 500),
  });
}

/** A request's notifications (the card lists its reminders and escalations). */
export const notificationsOf = (db: Db, approvalId: string) =>
  db.notification.findMany({ where: { approvalId }, orderBy: [{ dueAt: "asc" }, { id: "asc" }] });

// ---- People ----

/** Active users with their role, groups (JSON text) and email: the candidates for a request. */
export const activeUsers = (db: Db) =>
  db.user.findMany({ where: { disabled: false }, select: { id: true, email: true, name: true, role: true, groups: true } });

export const preferencesOf = (db: Db, userIds: string[]) => db.notifyPreference.findMany({ where: { userId: { in: userIds } } });

export type PreferenceInput = {
  channels: string[];
  digestMinutes: number;
  quietStart: string | null;
  quietEnd: string | null;
  timeZone: string;
};

export function savePreference(db: Db, userId: string, p: PreferenceInput) {
  const data = { ...p, channels: JSON.stringify(p.channels) };
  return db.notifyPreference.upsert({ where: { userId }, create: { userId, ...data }, update: data });
}

export const emailsOf = async (db: Db, ids: string[]) =>
  new Map(
    (await db.user.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, email: true } })).map((u) => [u.id, u.email]),
  );

/** The messages of a request that channels can update once it is decided. */
export const sentRefsOf = (db: Db, approvalId: string) =>
  db.notification.findMany({ where: { approvalId, status: "sent", sentRef: { not: null } }, select: { channel: true, sentRef: true } });

/** The name a decider goes by in messages (their email when they have none or are gone). */
export const nameOfEmail = async (db: Db, email: string) =>
  (await db.user.findUnique({ where: { email }, select: { name: true } }))?.name || email;

export const recipientOf = (db: Db, userId: string) =>
  db.user.findUnique({ where: { id: userId }, select: { id: true, email: true, name: true, role: true, groups: true, disabled: true } });
