// Hand-offs of pending requests (lib/services/handoffs.ts): reassignments (the latest per approval holds),
// comments, and reviewers' delegations to a deputy while away. Rows are read through zod schemas.
import { z } from "zod";
import type { Db } from "./client.ts";

export const assignmentSchema = z
  .object({
    approvalId: z.string(),
    runId: z.string(),
    seq: z.number().int().min(1),
    toEmail: z.string().nullable(),
    toGroup: z.string().nullable(),
    byEmail: z.string(),
    reason: z.string().nullable(),
    createdAt: z.date(),
  })
  .refine((a) => (a.toEmail === null) !== (a.toGroup === null), "an assignment names a person or a group");
export type Assignment = z.infer<typeof assignmentSchema>;

export const commentSchema = z.object({
  approvalId: z.string(),
  runId: z.string(),
  seq: z.number().int().min(1),
  authorEmail: z.string(),
  authorName: z.string().nullable(),
  text: z.string().max(2000),
  createdAt: z.date(),
});
export type Comment = z.infer<typeof commentSchema>;

export const delegationSchema = z
  .object({ userId: z.string(), deputyId: z.string(), startsAt: z.date(), endsAt: z.date() })
  .refine((d) => d.endsAt > d.startsAt, "a delegation ends after it starts");
export type Delegation = z.infer<typeof delegationSchema>;

// ---- Reassignments ----

/** The assignment that holds now (the latest), null: none. */
export async function currentAssignment(db: Db, approvalId: string): Promise<Assignment | null> {
  const row = await db.approvalAssignment.findFirst({ where: { approvalId }, orderBy: { seq: "desc" } });
  return row ? assignmentSchema.parse(row) : null;
}

/** The latest assignment of each of these approvals. */
export async function currentAssignments(db: Db, approvalIds: string[]): Promise<Map<string, Assignment>> {
  const out = new Map<string, Assignment>();
  for (let i = 0; i < approvalIds.length; i += 500) {
    const rows = await db.approvalAssignment.findMany({
      where: { approvalId: { in: approvalIds.slice(i, i + 500) } },
      orderBy: { seq: "asc" },
    });
    for (const r of rows) out.set(r.approvalId, assignmentSchema.parse(r));
  }
  return out;
}

export async function addAssignment(db: Db, a: Omit<Assignment, "seq" | "createdAt">): Promise<Assignment> {
  const seq = ((await currentAssignment(db, a.approvalId))?.seq ?? 0) + 1;
  return assignmentSchema.parse(await db.approvalAssignment.create({ data: { ...a, seq } }));
}

// ---- Comments ----

export async function commentsOf(db: Db, approvalId: string): Promise<Comment[]> {
  const rows = await db.approvalComment.findMany({ where: { approvalId }, orderBy: { seq: "asc" } });
  return rows.map((r) => commentSchema.parse(r));
}

/** The comments of each of these approvals, oldest first. */
export async function commentsOfMany(db: Db, approvalIds: string[]): Promise<Map<string, Comment[]>> {
  const out = new Map<string, Comment[]>();
  for (let i = 0; i < approvalIds.length; i += 500) {
    const rows = await db.approvalComment.findMany({
      where: { approvalId: { in: approvalIds.slice(i, i + 500) } },
      orderBy: [{ approvalId: "asc" }, { seq: "asc" }],
    });
    for (const r of rows) out.set(r.approvalId, [...(out.get(r.approvalId) ?? []), commentSchema.parse(r)]);
  }
  return out;
}

export async function commentBySeq(db: Db, approvalId: string, seq: number): Promise<Comment | null> {
  const row = await db.approvalComment.findUnique({ where: { approvalId_seq: { approvalId, seq } } });
  return row ? commentSchema.parse(row) : null;
}

export async function addComment(db: Db, c: Omit<Comment, "seq" | "createdAt">): Promise<Comment> {
  const last = await db.approvalComment.findFirst({ where: { approvalId: c.approvalId }, orderBy: { seq: "desc" }, select: { seq: true } });
  return commentSchema.parse(await db.approvalComment.create({ data: { ...c, seq: (last?.seq ?? 0) + 1 } }));
}

// ---- Delegations ----

export async function delegationOf(db: Db, userId: string): Promise<Delegation | null> {
  const row = await db.delegation.findUnique({ where: { userId } });
  return row ? delegationSchema.parse(row) : null;
}

/** Delegations whose window holds `at`. */
export async function activeDelegations(db: Db, at: Date): Promise<Delegation[]> {
  const rows = await db.delegation.findMany({ where: { startsAt: { lte: at }, endsAt: { gt: at } } });
  return rows.map((r) => delegationSchema.parse(r));
}

export const saveDelegation = (db: Db, d: Delegation) =>
  db.delegation.upsert({
    where: { userId: d.userId },
    create: d,
    update: { deputyId: d.deputyId, startsAt: d.startsAt, endsAt: d.endsAt },
  });

export const clearDelegation = (db: Db, userId: string) => db.delegation.deleteMany({ where: { userId } });
