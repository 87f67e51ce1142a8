// What the dispatcher reads of hand-offs: each request's reassignment, the delegations active now with the
// people who made them, and the words of a reassignment or a comment a message carries.
import type { Db } from "../db/client.ts";
import { type Assignment, activeDelegations, commentBySeq, currentAssignments } from "../db/handoffs.ts";
import type { Delivery, Notice } from "./channel.ts";
import { type Candidate, type Handoff, NO_HANDOFF, personOf } from "./recipients.ts";

export type Handoffs = { of(approvalId: string): Handoff; assignment(approvalId: string): Assignment | null };

/** The hand-offs of these requests as of `now`; `people`: the active users (delegators come from them). */
export async function loadHandoffs(db: Db, approvalIds: string[], people: Candidate[], now = new Date()): Promise<Handoffs> {
  const [assignments, delegations] = await Promise.all([currentAssignments(db, approvalIds), activeDelegations(db, now)]);
  const ids = new Set(delegations.map((d) => d.userId));
  const delegators = new Map(people.filter((p) => ids.has(p.id)).map((p) => [p.id, personOf(p)]));
  const deputies = delegations.map((d) => ({ userId: d.userId, deputyId: d.deputyId }));
  return {
    of: (id) => {
      const a = assignments.get(id);
      if (!a && !deputies.length) return NO_HANDOFF;
      return { assignment: a ? { toEmail: a.toEmail, toGroup: a.toGroup } : null, deputies, delegators };
    },
    assignment: (id) => assignments.get(id) ?? null,
  };
}

/** A reassignment's or a comment's message (null: the row it stands for is gone). */
export async function handoffDelivery(
  db: Db,
  row: { kind: string; seq: number; approvalId: string },
  notice: Notice,
  h: Handoffs,
): Promise<Delivery | null> {
  if (row.kind === "reassigned") {
    const a = h.assignment(row.approvalId);
    if (!a) return null;
    return { type: "reassigned", notice, by: a.byEmail, to: a.toEmail ?? a.toGroup ?? "", reason: a.reason };
  }
  const c = await commentBySeq(db, row.approvalId, row.seq);
  return c ? { type: "comment", notice, by: c.authorName ?? c.authorEmail, text: c.text } : null;
}
