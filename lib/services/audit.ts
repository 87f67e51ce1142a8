// The audit log, read by everyone who may see every run; submitters may not.
import "server-only";
import type { Actor } from "../auth/actor.ts";
import type { AppContext } from "../context.ts";
import { auditTargetNames, listAudit } from "../db/audit.ts";
import { type AuditPageDto, toAuditEventDto } from "../dto.ts";
import { parseOr400 } from "../validation.ts";
import { authorize } from "./access.ts";
import { auditFiltersSchema } from "./schemas.ts";

export async function auditPage(ctx: Pick<AppContext, "db">, actor: Actor | null, { query }: { query: unknown }): Promise<AuditPageDto> {
  authorize(actor, "runs:read-all");
  const page = await listAudit(ctx.db, parseOr400(auditFiltersSchema, query));
  const names = await auditTargetNames(ctx.db, page.events);
  return {
    events: page.events.map((e) => toAuditEventDto(e, names.get(`${e.targetType}:${e.targetId}`) ?? null)),
    nextCursor: page.nextCursor,
  };
}
