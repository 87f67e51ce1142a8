// The IdP taking someone out: a sign-in through it that admits them no longer, or SCIM deprovisioning.
// The user is disabled with the reason and the time, so every door that checks `disabled` shuts at once:
// browser sessions (lib/auth/actor.ts), API tokens acting as them (lib/services/tokens.ts), a linked local
// password (lib/auth/options.ts) and the CLI. Their open streams, of sessions and tokens alike, on every
// instance, are told now (lib/auth/revocation.ts). Only an admin or the IdP admitting them again lifts it.
import "server-only";
import type { Db } from "../db/client.ts";
import { transaction } from "../db/client.ts";
import { updateUserRow } from "../db/accounts.ts";
import { appendAudit } from "../db/audit.ts";
import type { LiveBus } from "../live/bus.ts";
import { accessChanged } from "./revocation.ts";

export type IdpReason = "idp" | "scim" | "scim-deleted";

/** Disabled by the IdP (not by an admin here): the IdP admitting them again lifts it. */
export const disabledByIdp = (u: { disabled: boolean; disabledReason: string | null }) => u.disabled && u.disabledReason !== null;

type AuditActor = { id: string; email: string } | null;

/** Suspends the user for reason (unless an admin has disabled them already), audited; tells their streams. */
export async function suspendUser(
  ctx: { db: Db; live: LiveBus },
  user: { id: string; disabled: boolean; disabledReason: string | null },
  reason: IdpReason,
  actor: AuditActor,
  data: Record<string, unknown>,
): Promise<void> {
  // An admin's disable stands as it is; a SCIM DELETE after a deactivation still records the deletion.
  if (user.disabled && (user.disabledReason === null || user.disabledReason === reason)) return;
  await transaction(ctx.db, async (tx) => {
    await updateUserRow(tx, user.id, { disabled: true, disabledReason: reason, disabledAt: new Date(), endSessions: true });
    await appendAudit(tx, { actor, action: "user.suspend", targetType: "user", targetId: user.id, data: { reason, ...data } });
  });
  accessChanged(ctx.live, user.id);
}

/** Lifts the IdP's suspension (never an admin's disable), audited. */
export async function restoreUser(
  ctx: { db: Db },
  user: { id: string; disabled: boolean; disabledReason: string | null },
  actor: AuditActor,
  data: Record<string, unknown>,
): Promise<boolean> {
  if (!disabledByIdp(user)) return false;
  await transaction(ctx.db, async (tx) => {
    await updateUserRow(tx, user.id, { disabled: false, disabledReason: null, disabledAt: null, endSessions: false });
    await appendAudit(tx, {
      actor,
      action: "user.restore",
      targetType: "user",
      targetId: user.id,
      data: { was: user.disabledReason, ...data },
    });
  });
  return true;
}
