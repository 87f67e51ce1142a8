// Who is told of a request: only people who may decide it. Its routing groups (none: anyone whose role
// decides approvals) or the person or group it was reassigned to, and the deputies of those away; never the
// person the run acts for (unless its agent allows self-approval), never someone who already voted on it.
// An escalation goes to the rule's fallback groups or people instead.
import { z } from "zod";
import type { ApprovalRecord } from "./approvals.ts";
import { type Deputy, type Person, type Routing, decidesApprovals, exclusionsOf, mayDecideOwn, standsInFor } from "./handoff.ts";

export type Candidate = { id: string; email: string; name: string | null; role: string; groups: string };

const groupsSchema = z.array(z.string());
function groupsOf(text: string): string[] {
  try {
    const p = groupsSchema.safeParse(JSON.parse(text));
    return p.success ? p.data : [];
  } catch {
    return [];
  }
}

const decides = decidesApprovals;

const lower = (s: string) => s.toLowerCase();

/** What hand-offs change (lib/notify/handoff.ts): a reassignment, and active delegations with their delegators. */
export type Handoff = { assignment: Routing | null; deputies: Deputy[]; delegators: Map<string, Person> };
export const NO_HANDOFF: Handoff = { assignment: null, deputies: [], delegators: new Map() };

export const personOf = (u: Candidate): Person => ({ id: u.id, email: u.email, role: u.role, groups: groupsOf(u.groups) });

/**
 * The people to tell of a request now: those who may decide it (its routing, or its reassignment), and the
 * deputies of those away. `selfApproval`: the agent lets the submitter decide.
 */
export function recipientsOf(
  a: ApprovalRecord,
  people: Candidate[],
  opts: { submitter: string | null; selfApproval: boolean },
  handoff: Handoff = NO_HANDOFF,
): Candidate[] {
  const ex = exclusionsOf(a, opts.submitter, opts.selfApproval);
  return people.filter(
    (u) =>
      mayDecideOwn(a, handoff.assignment, personOf(u), ex, false) ||
      (handoff.deputies.length > 0 && standsInFor(a, handoff.assignment, u, handoff.deputies, handoff.delegators, ex).length > 0),
  );
}

/** The fallback of an escalation: members of the named groups and the people named by email (who may decide approvals). */
export function escalationTargets(
  a: ApprovalRecord,
  to: string[],
  people: Candidate[],
  opts: { submitter: string | null; selfApproval: boolean },
) {
  const voted = new Set(a.decisions.map((d) => lower(d.by)));
  const submitter = opts.submitter && !opts.selfApproval ? lower(opts.submitter) : null;
  const emails = new Set(to.filter((t) => t.includes("@")).map(lower));
  const groups = to.filter((t) => !t.includes("@"));
  return people.filter(
    (u) =>
      decides(u.role) &&
      !voted.has(lower(u.email)) &&
      lower(u.email) !== submitter &&
      (emails.has(lower(u.email)) || groupsOf(u.groups).some((g) => groups.includes(g))),
  );
}
