// The audit log is append-only: this module is the only writer and it has no update or delete.
import type { Db } from "../db/client.ts";
import type { Actor } from "../auth/actor.ts";

export type AuditInput = {
  actor: Pick<Actor, "id" | "email"> | null;
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

export function listAudit(db: Db, opts: { take?: number; targetType?: string; targetId?: string } = {}) {
  return db.auditEvent.findMany({
    where: { targetType: opts.targetType, targetId: opts.targetId },
    orderBy: { at: "desc" },
    take: opts.take ?? 100,
  });
}
