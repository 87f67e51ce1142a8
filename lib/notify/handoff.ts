// Who may decide a request once it was handed on: the one rule the decide service, the hand-off services
// and the dispatcher's recipients share. A reassignment replaces the request's routing (to one person: only
// them; to a group: its members); a reviewer away names a deputy, who during the window may decide what the
// reviewer could (never a request of a run the deputy submitted: that stays the decider's own check).
import { can, type Role, roleSchema } from "../auth/roles.ts";

export type Routing = { toEmail: string | null; toGroup: string | null };
/** A person as the rule sees them: role and routing groups (parsed). */
export type Person = { id: string; email: string; role: string; groups: string[] };
/** An active delegation: `userId`'s requests may be decided by `deputyId`. */
export type Deputy = { userId: string; deputyId: string };

const lower = (s: string) => s.toLowerCase();

export const decidesApprovals = (role: string) => {
  const r = roleSchema.safeParse(role);
  return r.success && can(r.data as Role, "approvals:decide");
};

/** What the request is routed to now: the assignment's person or group, else its own groups (empty: anyone). */
export function routingOf(a: { groups: string[] }, assignment: Routing | null): { person: string | null; groups: string[] } {
  if (assignment?.toEmail) return { person: lower(assignment.toEmail), groups: [] };
  if (assignment?.toGroup) return { person: null, groups: [assignment.toGroup] };
  return { person: null, groups: a.groups };
}

/** Whether the routing reaches this person (their role aside). `adminsUnbound`: an admin is reached by everything (deciding; not for notifying). */
export function reaches(
  a: { groups: string[] },
  assignment: Routing | null,
  p: Pick<Person, "email" | "role" | "groups">,
  adminsUnbound: boolean,
) {
  if (adminsUnbound && p.role === "admin") return true;
  const r = routingOf(a, assignment);
  if (r.person) return lower(p.email) === r.person;
  return !r.groups.length || r.groups.some((g) => p.groups.includes(g));
}

export type Exclusions = { voted: Set<string>; submitter: string | null };

/** Who has voted on it and whose own run it is (null when the agent lets the submitter decide). */
export function exclusionsOf(a: { decisions: { by: string }[] }, submitter: string | null, selfApproval: boolean): Exclusions {
  return { voted: new Set(a.decisions.map((d) => lower(d.by))), submitter: submitter && !selfApproval ? lower(submitter) : null };
}

/** Whether a person, in their own right, may decide it now (role, routing, not their own run, not voted). */
export function mayDecideOwn(a: { groups: string[] }, assignment: Routing | null, p: Person, ex: Exclusions, adminsUnbound: boolean) {
  const e = lower(p.email);
  return decidesApprovals(p.role) && !ex.voted.has(e) && e !== ex.submitter && reaches(a, assignment, p, adminsUnbound);
}

/**
 * The people for whom `deputy` stands in on this request: delegators (active delegations to the deputy)
 * who may decide it in their own right. Empty: the delegation gives the deputy nothing here.
 */
export function standsInFor(
  a: { groups: string[] },
  assignment: Routing | null,
  deputy: Pick<Person, "id" | "email" | "role">,
  delegations: Deputy[],
  people: Map<string, Person>,
  ex: Exclusions,
): Person[] {
  const d = lower(deputy.email);
  if (!decidesApprovals(deputy.role) || ex.voted.has(d) || d === ex.submitter) return [];
  return delegations
    .filter((x) => x.deputyId === deputy.id && x.userId !== deputy.id)
    .map((x) => people.get(x.userId))
    .filter((p): p is Person => !!p && mayDecideOwn(a, assignment, p, ex, true));
}
