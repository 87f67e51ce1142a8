import "server-only";
import { z } from "zod";
import { type AuditPageDto, toAuditEventDto } from "../dto.ts";
import type { Db } from "../db/client.ts";
import { type Actor, requirePermission } from "../auth/actor.ts";
import { dateParam, intParam, parseOr400 } from "../validation.ts";
import { listAudit } from "../db/audit.ts";

export const auditFiltersSchema = z.strictObject({
  action: z.string().max(100).optional(),
  actor: z.string().max(320).optional(),
  targetId: z.string().max(200).optional(),
  from: dateParam.optional(),
  to: dateParam.optional(),
  cursor: z.string().max(100).optional(),
  take: intParam(1, 200).optional(),
});

// Everyone who may see every run may read the audit log; submitters may not.
export async function auditPage(db: Db, actor: Actor | null, query: unknown): Promise<AuditPageDto> {
  requirePermission(actor, "runs:read-all");
  const page = await listAudit(db, parseOr400(auditFiltersSchema, query));
  return { events: page.events.map(toAuditEventDto), nextCursor: page.nextCursor };
}
