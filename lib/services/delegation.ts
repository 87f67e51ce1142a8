// Delegation while away: a reviewer names a deputy (another user whose role decides approvals) between two
// dates. During the window the deputy is told of what the reviewer is told and may decide what the reviewer
// could (lib/notify/handoff.ts; never a run the deputy submitted); outside it nothing changes. Setting and
// clearing it are audited.
import "server-only";
import type { Actor } from "../auth/actor.ts";
import { ValidationError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import { userByEmail } from "../db/accounts.ts";
import { appendAudit } from "../db/audit.ts";
import { emailsOf } from "../db/notifications.ts";
import { type Delegation, clearDelegation, delegationOf, saveDelegation } from "../db/handoffs.ts";
import type { DelegationDto } from "../dto.ts";
import { decidesApprovals } from "../notify/handoff.ts";
import { parseOr400 } from "../validation.ts";
import { authorize } from "./access.ts";
import { delegationBodySchema } from "./schemas.ts";

type Ctx = Pick<AppContext, "db">;

const viewOf = (d: Delegation, deputy: string, now = Date.now()): DelegationDto => ({
  deputy,
  startsAtMs: d.startsAt.getTime(),
  endsAtMs: d.endsAt.getTime(),
  active: d.startsAt.getTime() <= now && now < d.endsAt.getTime(),
});

const auditOf = (d: Delegation, deputy: string) => ({ deputy, starts_at: d.startsAt.toISOString(), ends_at: d.endsAt.toISOString() });

/** The caller's delegation (null: none). */
export async function myDelegation(ctx: Ctx, actor: Actor | null): Promise<DelegationDto | null> {
  const who = authorize(actor, "approvals:decide");
  const d = await delegationOf(ctx.db, who.id);
  if (!d) return null;
  return viewOf(d, (await emailsOf(ctx.db, [d.deputyId])).get(d.deputyId) ?? "(removed user)");
}

export async function setMyDelegation(ctx: Ctx, actor: Actor | null, { body }: { body: unknown }): Promise<DelegationDto> {
  const who = authorize(actor, "approvals:decide");
  const input = parseOr400(delegationBodySchema, body);
  const email = input.deputy.trim().toLowerCase();
  const deputy = await userByEmail(ctx.db, email);
  if (!deputy || deputy.disabled || !decidesApprovals(deputy.role))
    throw new ValidationError("deputy", `${email} is no active user whose role decides approvals`);
  if (deputy.id === who.id) throw new ValidationError("deputy", "Name someone else as your deputy");
  const d: Delegation = { userId: who.id, deputyId: deputy.id, startsAt: new Date(input.startsAt), endsAt: new Date(input.endsAt) };
  const before = await delegationOf(ctx.db, who.id);
  const beforeDeputy = before ? ((await emailsOf(ctx.db, [before.deputyId])).get(before.deputyId) ?? null) : null;
  await saveDelegation(ctx.db, d);
  await appendAudit(ctx.db, {
    actor: who,
    action: "delegation.set",
    targetType: "user",
    targetId: who.id,
    data: { before: before ? auditOf(before, beforeDeputy ?? "") : null, after: auditOf(d, deputy.email) },
  });
  return viewOf(d, deputy.email);
}

export async function clearMyDelegation(ctx: Ctx, actor: Actor | null): Promise<null> {
  const who = authorize(actor, "approvals:decide");
  const before = await delegationOf(ctx.db, who.id);
  if (!before) return null;
  await clearDelegation(ctx.db, who.id);
  const deputy = (await emailsOf(ctx.db, [before.deputyId])).get(before.deputyId) ?? "";
  await appendAudit(ctx.db, {
    actor: who,
    action: "delegation.clear",
    targetType: "user",
    targetId: who.id,
    data: { before: auditOf(before, deputy), after: null },
  });
  return null;
}
