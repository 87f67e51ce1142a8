// Search: what a reviewer types ("ORD-1001", a customer's email) matched against runs and approvals. Each
// match is one small function so the store behind it can change (approvals move to a typed table) without
// touching the services or the pages that use them.
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

/** An approval routed to `group` (only its members decide it). */
export const approvalInGroup = (a: ApprovalRecord, group: string) => a.groups.includes(group);
