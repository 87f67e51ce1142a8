// Search: what a reviewer types ("ORD-1001", a customer's email) matched against runs and approvals. Each
// match is one small function so the store behind it can change without touching the services or the pages
// that use them. An approval's arguments are in its record only, so its text is matched on the record read;
// its routed group is a filter of the pending query (`group` in lib/db/approvals.ts).
import { Prisma } from "../generated/sqlite/client.ts";
import type { ApprovalRecord } from "../runner/index.ts";

// LIKE's own wildcards typed by a reviewer are matched as themselves.
const likeText = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A run whose id starts with `q` or whose input holds it (any field's value, case-insensitive). */
export const runSearchSql = (q: string): Prisma.Sql =>
  Prisma.sql`(substr("id", 1, ${q.length}) = ${q} OR LOWER("input") LIKE ${likeText(q)} ESCAPE '\\')`;

/** An approval whose run id starts with `q`, or whose tool, agent or arguments (as asked or as edited) hold it. */
export function approvalMatchesText(a: ApprovalRecord, q: string): boolean {
  const t = q.toLowerCase();
  if (a.root_run_id.startsWith(q) || a.run_id.startsWith(q)) return true;
  const text = `${a.tool_name}\n${a.agent_name}\n${JSON.stringify(a.args)}\n${a.approved_args ? JSON.stringify(a.approved_args) : ""}`;
  return text.toLowerCase().includes(t);
}
