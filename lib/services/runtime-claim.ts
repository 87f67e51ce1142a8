// The runtime protocol's hand-over of decisions (v1): a runtime claims a decision before it applies it, in
// the name of a claimant (an id it keeps with its own state), and withdraws an interrupt whose request
// ended. The first claimant wins and applies it; the same claimant may claim again (a process that died
// after claiming comes back with its id and its lease starts again); any other claimant is answered 409 and
// applies nothing — until the holder's lease runs out with the call's result never reported (no tool_result
// for the call, the run not ended), when the next claimant takes it over. The lease is the window in which
// a decision can be applied twice only by a claimant that died after applying it without reporting.
import "server-only";
import { DecisionConflictError, NotFoundError } from "../auth/errors.ts";
import { appendAudit } from "../db/audit.ts";
import { transaction } from "../db/client.ts";
import { getRunRow, lockRun } from "../db/runs.ts";
import { type ClaimRow, claimInterrupt, runtimeEvents } from "../db/runtime.ts";
import { PrismaStore } from "../db/store.ts";
import { claimSchema, withdrawSchema } from "../dto-protocol.ts";
import { type ApprovalRecord, isTerminal, listApprovals, withdrawApproval } from "../runner/index.ts";
import { parseOr400 } from "../validation.ts";
import { onRun } from "./run-view.ts";
import type { RuntimeCaller } from "../auth/tokens.ts";
import { auditActor, type Ctx, caller, interruptIdOf, ownRun, storedInterrupt } from "./runtime-protocol.ts";
import { storedRuntimeEvent, toRuntimeDecision } from "./runtime-view.ts";

async function interruptOf(ctx: Ctx, run: { id: string; threadId: string }, interruptId: string): Promise<ApprovalRecord> {
  const rec = (await onRun(ctx.db, run.id, () => listApprovals(ctx.store, run.threadId, run.id))).find(
    (a) => interruptIdOf(a) === interruptId,
  );
  if (!rec) throw new NotFoundError("No such interrupt");
  return rec;
}

// The runtime reported what the call did (a tool_result naming it) or the run ended: the claim is final.
async function resultReported(ctx: Ctx, runId: string, rec: ApprovalRecord): Promise<boolean> {
  const run = await getRunRow(ctx.db, runId);
  if (!run || isTerminal(run.state)) return true;
  const calls = new Set([interruptIdOf(rec), rec.tool_call_id, rec.external?.call_id].filter((c): c is string => !!c));
  return (await runtimeEvents(ctx.db, runId)).some((row) => {
    const e = storedRuntimeEvent(row);
    return e?.type === "tool_result" && calls.has(e.callId);
  });
}

/**
 * Hands a decision to one claimant: 200 with it to the first claimant, and to that claimant again; 409 with
 * it (its `claimant` the holder) to any other while the holder's lease runs or after the call's result was
 * reported; past the lease with no result reported, the claim passes to the next claimant.
 */
export async function claimDecision(
  ctx: Ctx,
  c: RuntimeCaller | null,
  { runId, interruptId, body }: { runId: string; interruptId: string; body: unknown },
) {
  const { db } = ctx;
  const who = caller(c);
  const input = parseOr400(claimSchema, body ?? {});
  const run = await ownRun(ctx, who, runId);
  const rec = await interruptOf(ctx, run, interruptId);
  if (rec.status === "pending") throw new DecisionConflictError("Not decided yet", storedInterrupt(rec));
  const now = Date.now();
  const outcome = await claimInterrupt(
    db,
    { approvalId: rec.id, runId: run.id, tokenId: who.tokenId, claimant: input.claimant, leaseUntil: new Date(now + input.leaseS * 1000) },
    (took, from) => ({
      actor: auditActor(who),
      action: "runtime.claim",
      targetType: "run",
      targetId: run.id,
      data: {
        approval_id: rec.id,
        status: rec.status,
        claimant: input.claimant,
        lease_s: input.leaseS,
        ...(took === "over" ? { taken_over_from: from } : {}),
      },
    }),
    async (held: ClaimRow) =>
      held.leaseUntil !== null && held.leaseUntil.getTime() <= Date.now() && !(await resultReported(ctx, run.id, rec)),
  );
  const decision = toRuntimeDecision(rec, outcome.row);
  if (!outcome.claimed)
    throw new DecisionConflictError(`This decision is claimed by another claimant (${outcome.row.claimant}): apply nothing`, decision);
  if (outcome.took !== "again") ctx.live.publish({ topic: "run", runId: run.id });
  return { decision };
}

/**
 * Withdraws one pending interrupt: the request that asked ended (an MCP request cancelled or timed out), so
 * it leaves every inbox, closed as expired by system:withdrawn, audited; deciding it later is 409 with its
 * state. Withdrawing one already decided changes nothing and answers its state (200, withdrawn false).
 */
export async function withdrawInterrupt(
  ctx: Ctx,
  c: RuntimeCaller | null,
  { runId, interruptId, body }: { runId: string; interruptId: string; body: unknown },
) {
  const { db } = ctx;
  const who = caller(c);
  const input = parseOr400(withdrawSchema, body ?? {});
  const run = await ownRun(ctx, who, runId);
  await interruptOf(ctx, run, interruptId);
  const reason = input.reason ?? "The runtime withdrew it (the request that asked ended)";
  const result = await onRun(db, run.id, () =>
    transaction(db, async (tx) => {
      await lockRun(tx, run.id);
      const store = new PrismaStore(tx);
      const rec = (await listApprovals(store, run.threadId, run.id)).find((a) => interruptIdOf(a) === interruptId) as ApprovalRecord;
      const { record, applied } = await withdrawApproval(store, rec, Date.now(), reason);
      if (applied)
        await appendAudit(tx, {
          actor: auditActor(who),
          action: "runtime.withdraw",
          targetType: "run",
          targetId: run.id,
          data: { approval_id: record.id, interrupt_id: interruptId, reason },
        });
      return { record, applied };
    }),
  );
  if (result.applied) {
    ctx.live.publish({ topic: "inbox" });
    ctx.live.publish({ topic: "run", runId: run.id });
  }
  return { withdrawn: result.applied, interrupt: storedInterrupt(result.record) };
}
