// A reviewer's decision on an approval or a question: approve (possibly with edited arguments), reject
// with a reason, or respond in the tool's place. Checked against routing, separation of duties and the
// arguments the reviewer saw; written with its audit entry in one transaction. The decision that completes
// a step also reserves the run's resume in that transaction (the Resume button's queue and lease path, so
// it happens once however many deciders finish at once), unless its agent opted out (`autoResume: false`)
// or the run is an external runtime's (its runtime claims the decisions).
import "server-only";
import type { Actor } from "../auth/actor.ts";
import { DecisionConflictError, ForbiddenError, NotFoundError, ValidationError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import { argChanges } from "../dto.ts";
import { log } from "../log.ts";
import { approvalClosed } from "../metrics.ts";
import {
  ApprovalDecisionError,
  type ApprovalRecord,
  decideApproval,
  getApproval,
  parseApprovalId,
  RUN,
  resumesByItself,
} from "../runner/index.ts";
import { appendAudit } from "../db/audit.ts";
import { getRunRow, lockRun, updateTraceContext } from "../db/runs.ts";
import { PrismaStore } from "../db/store.ts";
import { parseOr400 } from "../validation.ts";
import { authorize } from "./access.ts";
import { deciderGroupsFor } from "./handoff-access.ts";
import { assertReadable, onRun, pendingApprovalsOf } from "./run-view.ts";
import { decisionSchema } from "./schemas.ts";
import { toRuntimeDecision } from "./runtime-view.ts";
import { notifyDecided } from "../webhooks/pause.ts";
import { traceDecision } from "../telemetry/decisions.ts";
import { withDecision } from "../telemetry/propagation.ts";

export type DecideInput = {
  approvalId: string;
  /** { decision, reason?, args?, answer?, argsHash? } as the client sent it. */
  body: unknown;
  /** The door it came through, as messages about the request say it ("in Slack"); the console by default. */
  via?: string;
};

function approvalError(e: unknown, current: unknown): never {
  if (!(e instanceof ApprovalDecisionError)) throw e;
  switch (e.code) {
    case "not_found":
      throw new NotFoundError(e.message);
    case "forbidden":
      throw new ForbiddenError(e.message);
    case "invalid_args":
      throw new ValidationError(e.field ?? "args", e.message);
    default:
      throw new DecisionConflictError(e.message, current);
  }
}

export async function decide(ctx: AppContext, actor: Actor | null, { approvalId, body, via }: DecideInput) {
  const { db, executor: ex } = ctx;
  const who = authorize(actor, "approvals:decide");
  const input = parseOr400(decisionSchema, body);
  const ref = parseApprovalId(approvalId);
  if (!ref) throw new NotFoundError("No such approval");
  const root = await getRunRow(db, ref.rootRunId);
  if (!root) throw new NotFoundError("No such approval");
  await assertReadable(ctx, root);
  const before = await onRun(db, root.id, () => getApproval(ctx.store, root.threadId, approvalId));
  if (!before) throw new NotFoundError("No such approval");
  // An external run's agent is its runtime's, whatever its name: none of ours applies (its interrupts carry
  // their own schemas, and it never resumes here).
  const external = !!root.runtimeTokenId;
  const rootAgent = external ? undefined : ctx.agents.find(root.agentName);
  // An MCP tool's schema (edited arguments are validated by it) comes from its server.
  const deciding = external ? undefined : ctx.agents.find(before.agent_name);
  if (deciding) await ctx.agents.prepare(deciding).catch((e) => log.warn("MCP tools unavailable for a decision", { error: String(e) }));
  const tool = external ? undefined : ctx.agents.toolsOf(before.agent_name).find((t) => t.name === before.tool_name);
  const edited = input.decision === "approve" && !!input.args;

  // The decision, its audit entry and (unless the agent opted out) the reservation of the resume and its
  // job commit in one transaction, on SQLite as on PostgreSQL: a crash loses all or nothing. Its first
  // statement takes the run's row lock, so decisions on one run serialize: of two that finish a step at
  // once, the second sees nothing pending and reserves; the first saw the other still pending.
  const result = await onRun(db, root.id, () =>
    ex.transaction(async (tx, submit) => {
      await lockRun(tx, root.id);
      // Counted after the commit, below: a decision rolled back closed nothing.
      const store = new PrismaStore(tx, null, { countApprovals: false });
      let after: ApprovalRecord;
      try {
        after = await decideApproval(store, root.threadId, approvalId, tool, {
          by: who.email,
          decision: input.decision,
          reason: input.reason,
          args: input.args,
          answer: input.answer,
          expectedArgsHash: input.argsHash,
          forbiddenDeciders: rootAgent?.allowSelfApproval || !root.submittedByEmail ? [] : [root.submittedByEmail],
          // Routing as hand-offs leave it: a reassignment, a delegation to this decider while its reviewer is away.
          deciderGroups: await deciderGroupsFor(tx, who, before, {
            submitter: rootAgent?.allowSelfApproval ? null : root.submittedByEmail,
            selfApproval: !!rootAgent?.allowSelfApproval,
          }),
        });
      } catch (e) {
        approvalError(e, await getApproval(store, root.threadId, approvalId));
      }
      // Traces: the decision on this request's span; the resumed segment will link to it.
      const traceparent = traceDecision(after);
      if (traceparent) await updateTraceContext(tx, root.id, (current) => withDecision(current, traceparent));
      await appendAudit(tx, {
        actor: who,
        action: edited ? "approval.edit_approve" : `approval.${input.decision}`,
        targetType: "run",
        targetId: root.id,
        data: {
          approval_id: approvalId,
          tool: before.tool_name,
          decision: input.decision,
          reason: input.reason ?? null,
          kind: before.kind,
          ...(input.answer ? { answer: after.decisions.at(-1)?.answer ?? null } : {}),
          before: before.approved_args ?? before.args,
          after: after.approved_args ?? after.args,
          changes: argChanges(before.args, after.approved_args),
          status: after.status,
        },
      });
      let reserved = false;
      // The run's state as of the lock (it may have paused since it was read above); the reservation is a
      // compare-and-set on it anyway. A quorum's request stays pending until its last required vote.
      if (rootAgent && resumesByItself(rootAgent) && after.status !== "pending" && (await getRunRow(tx, root.id))?.state === RUN.paused) {
        const pending = await pendingApprovalsOf(tx, root.id);
        reserved =
          !pending.length &&
          (await submit(root.id, RUN.paused, {
            actor: null,
            action: "run.auto_resume",
            targetType: "run",
            targetId: root.id,
            data: { after: approvalId },
          }));
      }
      return { approval: after, resumed: reserved };
    }),
  );
  await requestDecided(ctx, { rootRunId: root.id, approval: result.approval, external, via });
  return result;
}

/**
 * What follows a committed decision on a request, whoever made it (a reviewer here, a deadline in
 * deadlines.ts): a request it closed is counted, every reviewer's inbox and every tab on the run refetch
 * (and a runtime's long-poll wakes), and an external run's runtime hears of it by webhook. The decision and
 * its audit entry are already committed; nothing here can undo them.
 */
export async function requestDecided(
  ctx: Pick<AppContext, "db" | "live" | "webhook" | "notifier">,
  decided: { rootRunId: string; approval: ApprovalRecord /** The run is an external runtime's. */; external: boolean; via?: string },
): Promise<void> {
  const { rootRunId, approval, external } = decided;
  const closed = approval.status !== "pending";
  if (closed) approvalClosed(approval);
  ctx.live.publish({ topic: "inbox" });
  ctx.live.publish({ topic: "run", runId: rootRunId });
  // Messages sent about it are updated (or reminders stop); a failing channel never fails the decision.
  if (ctx.notifier) void ctx.notifier.decided(approval, decided.via);
  if (external && ctx.webhook && closed)
    await notifyDecided(ctx.db, ctx.webhook, rootRunId, [toRuntimeDecision(approval, null)]).catch((e) =>
      log.warn("decision webhook failed", { run_id: rootRunId, error: String(e) }),
    );
}
