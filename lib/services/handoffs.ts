// Hand-offs of a pending request: reassigned to another reviewer or routing group (by someone who may decide
// it, or an admin), and a comment thread. Both are written with their audit entry in one transaction under
// the run's row lock (so they serialize with decisions), then the people concerned are told through the
// dispatcher. Who may decide a request once handed on is lib/notify/handoff.ts's rule; the decide service
// asks lib/services/handoff-access.ts.
import "server-only";
import type { Actor } from "../auth/actor.ts";
import { DecisionConflictError, ForbiddenError, NotFoundError, ValidationError } from "../auth/errors.ts";
import { storedGroups } from "../auth/groups.ts";
import type { AppContext } from "../context.ts";
import { userByEmail } from "../db/accounts.ts";
import { appendAudit } from "../db/audit.ts";
import { transaction } from "../db/client.ts";
import { addAssignment, addComment, commentsOf, currentAssignment } from "../db/handoffs.ts";
import { activeUsers } from "../db/notifications.ts";
import { lockRun } from "../db/runs.ts";
import { PrismaStore } from "../db/store.ts";
import { toAssignmentDto, toCommentDto } from "../dto.ts";
import { type Routing, decidesApprovals, routingOf } from "../notify/handoff.ts";
import { getApproval, parseApprovalId } from "../runner/index.ts";
import { parseOr400 } from "../validation.ts";
import { mayDecideNow, routingText, separation } from "./handoff-access.ts";
import { SEES_RUNS, authorize, visibleRun } from "./access.ts";
import { onRun } from "./run-view.ts";
import { commentBodySchema, reassignSchema } from "./schemas.ts";

const lower = (s: string) => s.toLowerCase();

/** The request, its root run (visible to the actor) and who the run acts for. */
async function requestOf(ctx: AppContext, who: Actor, approvalId: string) {
  const ref = parseApprovalId(approvalId);
  if (!ref) throw new NotFoundError("No such approval");
  const root = await visibleRun(ctx, who, ref.rootRunId).catch(() => {
    throw new NotFoundError("No such approval");
  });
  const a = await onRun(ctx.db, root.id, () => getApproval(ctx.store, root.threadId, approvalId));
  if (!a) throw new NotFoundError("No such approval");
  return { root, a, ...separation(ctx.agents, root) };
}

// ---- Reassign ----

export type ReassignInput = { approvalId: string; body: unknown };

export async function reassign(ctx: AppContext, actor: Actor | null, { approvalId, body }: ReassignInput) {
  const who = authorize(actor, "approvals:decide");
  const input = parseOr400(reassignSchema, body);
  const { root, a, submitter, selfApproval } = await requestOf(ctx, who, approvalId);
  // A decided request is 409 with its state whoever it names (checked again under the run's lock below).
  if (a.status !== "pending") throw new DecisionConflictError(`This request is already ${a.status}`, a);
  const to: Routing = { toEmail: input.email ? lower(input.email) : null, toGroup: input.group ?? null };
  if (to.toEmail) {
    const user = await userByEmail(ctx.db, to.toEmail);
    if (!user || user.disabled || !decidesApprovals(user.role))
      throw new ValidationError("email", `${to.toEmail} is no active user whose role decides approvals`);
    if (!selfApproval && submitter && lower(submitter) === to.toEmail)
      throw new ValidationError("email", `${to.toEmail} submitted this run and may not decide it`);
    if (a.decisions.some((d) => lower(d.by) === to.toEmail)) throw new ValidationError("email", `${to.toEmail} has already voted on it`);
  } else if (!(await activeUsers(ctx.db)).some((u) => decidesApprovals(u.role) && storedGroups(u.groups).includes(to.toGroup as string)))
    throw new ValidationError("group", `Nobody who may decide approvals is in group ${to.toGroup}`);

  const assignment = await onRun(ctx.db, root.id, () =>
    transaction(ctx.db, async (tx) => {
      await lockRun(tx, root.id);
      const now = await getApproval(new PrismaStore(tx, null, { countApprovals: false }), root.threadId, approvalId);
      if (!now) throw new NotFoundError("No such approval");
      if (now.status !== "pending") throw new DecisionConflictError(`This request is already ${now.status}`, now);
      const approvals = now.decisions.filter((d) => d.decision === "approve").length;
      if (to.toEmail && now.quorum - approvals > 1)
        throw new DecisionConflictError(
          `This request still needs ${now.quorum - approvals} approvals; reassign it to a group, not one person`,
          now,
        );
      if (who.role !== "admin" && !(await mayDecideNow(tx, who, now, { submitter, selfApproval })))
        throw new ForbiddenError("Only someone who may decide this request (or an admin) may reassign it");
      const before = await currentAssignment(tx, approvalId);
      const after = await addAssignment(tx, {
        approvalId,
        runId: root.id,
        toEmail: to.toEmail,
        toGroup: to.toGroup,
        byEmail: who.email,
        reason: input.reason || null,
      });
      await appendAudit(tx, {
        actor: who,
        action: "approval.reassign",
        targetType: "run",
        targetId: root.id,
        data: {
          approval_id: approvalId,
          tool: now.tool_name,
          before: before ? routingText(before) : routingOf(now, null).groups,
          after: routingText(after),
          reason: after.reason,
        },
      });
      return after;
    }),
  );
  ctx.live.publish({ topic: "run", runId: root.id });
  ctx.live.publish({ topic: "inbox" });
  // The new reviewers are told (a reassignment message, each once); a failing channel fails nothing here.
  if (ctx.notifier) void ctx.notifier.paused(root.id);
  return { assignment: toAssignmentDto(assignment) };
}

// ---- Comments ----

export async function listComments(ctx: AppContext, actor: Actor | null, { approvalId }: { approvalId: string }) {
  const who = authorize(actor, SEES_RUNS);
  await requestOf(ctx, who, approvalId);
  return { comments: (await commentsOf(ctx.db, approvalId)).map(toCommentDto) };
}

export async function postComment(ctx: AppContext, actor: Actor | null, { approvalId, body }: { approvalId: string; body: unknown }) {
  const who = authorize(actor, "approvals:decide");
  const input = parseOr400(commentBodySchema, body);
  const { root } = await requestOf(ctx, who, approvalId);
  const comment = await transaction(ctx.db, async (tx) => {
    await lockRun(tx, root.id);
    const c = await addComment(tx, { approvalId, runId: root.id, authorEmail: who.email, authorName: who.name || null, text: input.text });
    await appendAudit(tx, {
      actor: who,
      action: "approval.comment",
      targetType: "run",
      targetId: root.id,
      data: { approval_id: approvalId, seq: c.seq, text: c.text },
    });
    return c;
  });
  ctx.live.publish({ topic: "run", runId: root.id });
  if (ctx.notifier) void ctx.notifier.commented(approvalId, root.threadId, comment);
  return { comment: toCommentDto(comment) };
}
