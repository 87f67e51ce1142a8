// Who is told of a request: only people who may decide it. Its routing groups (none: anyone whose role
// decides approvals), never the person the run acts for (unless its agent allows self-approval), never
// someone who already voted on it. An escalation goes to the rule's fallback groups or people instead.
import { z } from "zod";
import { can, type Role, roleSchema } from "../auth/roles.ts";
import type { ApprovalRecord } from "./approvals.ts";

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

const decides = (role: string) => {
  const r = roleSchema.safeParse(role);
  return r.success && can(r.data as Role, "approvals:decide");
};

const lower = (s: string) => s.toLowerCase();

/** The people to tell of a request now. `selfApproval`: the agent lets the submitter decide. */
export function recipientsOf(
  a: ApprovalRecord,
  people: Candidate[],
  opts: { submitter: string | null; selfApproval: boolean },
): Candidate[] {
  const voted = new Set(a.decisions.map((d) => lower(d.by)));
  const submitter = opts.submitter && !opts.selfApproval ? lower(opts.submitter) : null;
  return people.filter((u) => {
    if (!decides(u.role) || voted.has(lower(u.email)) || lower(u.email) === submitter) return false;
    if (!a.groups.length) return true;
    const mine = groupsOf(u.groups);
    return a.groups.some((g) => mine.includes(g));
  });
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
