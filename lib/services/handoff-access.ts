// Who may decide a request once it was handed on, as the services ask it: the decide service (the groups to
// check a decider against), the run page and the card (whether this reviewer may decide or reassign it).
// The rule itself is lib/notify/handoff.ts's.
import "server-only";
import { type Actor, routingGroupsOf } from "../auth/actor.ts";
import { ForbiddenError } from "../auth/errors.ts";
import { storedGroups } from "../auth/groups.ts";
import type { Db } from "../db/client.ts";
import { activeDelegations, commentsOfMany, currentAssignment, currentAssignments } from "../db/handoffs.ts";
import { activeUsers } from "../db/notifications.ts";
import { type Person, type Routing, exclusionsOf, reaches, standsInFor } from "../notify/handoff.ts";
import { type HandoffsDto, toAssignmentDto, toCommentDto } from "../dto.ts";
import { type ApprovalRecord, mayDecide } from "../runner/index.ts";
import { type RunRow, allows } from "./access.ts";

type Separation = { submitter: string | null; selfApproval: boolean };

const lower = (s: string) => s.toLowerCase();
const personOf = (who: Actor): Person => ({ id: who.id, email: who.email, role: who.role, groups: who.groups ?? [] });
export const routingText = (r: Routing | null) => (r ? (r.toEmail ?? r.toGroup) : null);

/**
 * The routing groups decideApproval checks a decider against, hand-offs applied: null when a reassignment
 * or a delegation lets this decider decide it (routing is then checked here), the decider's own groups when
 * no hand-off concerns them (the runner's check and its words apply), 403 when the request was reassigned
 * away from them. Separation of duties and earlier votes stay the runner's checks.
 */
export async function deciderGroupsFor(
  db: Db,
  who: Actor,
  a: Pick<ApprovalRecord, "id" | "groups" | "decisions">,
  sep: { submitter: string | null; selfApproval: boolean },
): Promise<string[] | null> {
  const [assignment, delegations] = await Promise.all([currentAssignment(db, a.id), activeDelegations(db, new Date())]);
  const mine = delegations.filter((d) => d.deputyId === who.id);
  if (!assignment && !mine.length) return routingGroupsOf(who);
  const me = personOf(who);
  if (reaches(a, assignment, me, true)) return assignment ? null : routingGroupsOf(who);
  if (mine.length) {
    const ids = new Set(mine.map((d) => d.userId));
    const delegators = new Map(
      (await activeUsers(db))
        .filter((u) => ids.has(u.id))
        .map((u) => [u.id, { id: u.id, email: u.email, role: u.role, groups: storedGroups(u.groups) }]),
    );
    const ex = exclusionsOf(a, sep.submitter, sep.selfApproval);
    if (standsInFor(a, assignment, me, mine, delegators, ex).length) return null;
  }
  if (!assignment) return routingGroupsOf(who);
  throw new ForbiddenError(`This request was reassigned to ${routingText(assignment)}; only they may decide it`);
}

/** The run's submitter as separation of duties sees them (selfApproval: the agent lets them decide; never an external run). */
export function separation(agents: { find(name: string): { allowSelfApproval?: boolean } | undefined }, root: RunRow): Separation {
  const selfApproval = !root.runtimeTokenId && !!agents.find(root.agentName)?.allowSelfApproval;
  return { submitter: root.submittedByEmail, selfApproval };
}

// The actor may decide approvals and is not kept from this run's by separation of duties.
const decidesHere = (who: Actor, sep: Separation) =>
  allows(who, "approvals:decide") && !(!sep.selfApproval && sep.submitter && lower(sep.submitter) === lower(who.email));

/** Whether the actor may decide this request now (role, routing and hand-offs; not their own run). */
export async function mayDecideNow(db: Db, who: Actor, a: Pick<ApprovalRecord, "id" | "groups" | "decisions">, sep: Separation) {
  return decidesHere(who, sep) && routingAllows(db, who, a, sep);
}

/**
 * What each card of a run shows of its request's hand-offs, read at once for all of them with the run view:
 * the reassignment that holds, the comments, and whether this reader may comment and reassign (`routed`:
 * routing, hand-offs applied, lets them decide it, as the run view computed).
 */
export async function handoffsOf(
  db: Db,
  who: Actor,
  requests: { id: string; pending: boolean; routed: boolean }[],
  sep: Separation,
): Promise<Map<string, HandoffsDto>> {
  const ids = requests.map((r) => r.id);
  const [assignments, comments] = await Promise.all([currentAssignments(db, ids), commentsOfMany(db, ids)]);
  const decides = decidesHere(who, sep);
  return new Map(
    requests.map((r) => {
      const assignment = assignments.get(r.id);
      return [
        r.id,
        {
          assignment: assignment ? toAssignmentDto(assignment) : null,
          comments: (comments.get(r.id) ?? []).map(toCommentDto),
          canReassign: r.pending && (who.role === "admin" || (decides && r.routed)),
          canComment: allows(who, "approvals:decide"),
        },
      ];
    }),
  );
}

/** Whether routing, hand-offs applied, lets this reviewer decide it (what the run page's canDecide says). */
export async function routingAllows(
  db: Db,
  who: Actor,
  a: Pick<ApprovalRecord, "id" | "groups" | "decisions">,
  sep: { submitter: string | null; selfApproval: boolean },
) {
  try {
    const groups = await deciderGroupsFor(db, who, a, sep);
    return groups === null || mayDecide(a, groups);
  } catch (e) {
    if (e instanceof ForbiddenError) return false;
    throw e;
  }
}
