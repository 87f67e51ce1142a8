// The audit log is append-only: this module is the only writer and it has no update or delete.
import type { Db } from "./client.ts";
import { cursorPage } from "./pagination.ts";

export type AuditInput = {
  actor: { id: string; email: string } | null;
  action: string;
  targetType: string;
  targetId: string;
  data?: unknown;
};

type Tx = Pick<Db, "auditEvent">;

export function appendAudit(db: Tx, e: AuditInput) {
  return db.auditEvent.create({
    data: {
      actorId: e.actor?.id ?? null,
      actorEmail: e.actor?.email ?? null,
      action: e.action,
      targetType: e.targetType,
      targetId: e.targetId,
      data: JSON.stringify(e.data ?? {}),
    },
  });
}

/** Who (an email; null: the system) last did `action` to the target; undefined when nobody did. */
export async function lastActorOf(db: Db, targetId: string, action: string): Promise<string | null | undefined> {
  const row = await db.auditEvent.findFirst({
    where: { targetId, action },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    select: { actorEmail: true },
  });
  return row ? row.actorEmail : undefined;
}

export type AuditFilters = { action?: string; actor?: string; targetId?: string; from?: Date; to?: Date; cursor?: string; take?: number };

// Newest first; cursor = the last row's id.
export async function listAudit(db: Db, f: AuditFilters = {}) {
  const take = Math.min(Math.max(f.take ?? 50, 1), 200);
  const rows = await db.auditEvent.findMany({
    where: {
      action: f.action ? { startsWith: f.action } : undefined,
      actorEmail: f.actor,
      targetId: f.targetId,
      at: f.from || f.to ? { gte: f.from, lte: f.to } : undefined,
    },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: take + 1,
    ...(f.cursor ? { cursor: { id: f.cursor }, skip: 1 } : {}),
  });
  const { page, nextCursor } = cursorPage(rows, take, (r) => r.id);
  return { events: page, nextCursor };
}

/**
 * What a page calls each event's target: a run by its agent, a user by email, a token by name (three
 * look-ups by primary key for a page, whatever its size). A target since deleted has none.
 */
export async function auditTargetNames(db: Db, events: { targetType: string; targetId: string }[]): Promise<Map<string, string>> {
  const ids = (type: string) => [...new Set(events.filter((e) => e.targetType === type).map((e) => e.targetId))];
  const [runs, users, tokens] = await Promise.all([
    db.run.findMany({ where: { id: { in: ids("run") } }, select: { id: true, agentName: true } }),
    db.user.findMany({ where: { id: { in: ids("user") } }, select: { id: true, email: true } }),
    db.apiToken.findMany({ where: { id: { in: ids("token") } }, select: { id: true, name: true } }),
  ]);
  return new Map([
    ...runs.map((r) => [`run:${r.id}`, `${r.agentName} run ${r.id.slice(0, 8)}`] as const),
    ...users.map((u) => [`user:${u.id}`, u.email] as const),
    ...tokens.map((t) => [`token:${t.id}`, `token “${t.name}”`] as const),
  ]);
}
