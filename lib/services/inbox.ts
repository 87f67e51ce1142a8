// The approvals inbox and the pending badge: what every reviewer's browser polls. Reading it writes
// nothing: an approval record that cannot be read is listed apart and never offered for a decision; its
// run is marked by the sweep (which reads every pending approval) or by the first decision or page that
// reads it.
//
// The inbox's ETag is a hash of the page's stored records (as text), the reviewer and the filters: an
// unchanged inbox costs one indexed read and a 304, and a changed one is read and built once per reviewer
// (the last few answers are kept per process), not on every poll.
import "server-only";
import { createHash } from "node:crypto";
import { type Actor, routingGroupsOf } from "../auth/actor.ts";
import { ValidationError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import { summarizeArgs } from "../display.ts";
import { gateFacts, gateWords } from "../display-call.ts";
import {
  type InboxCorruptDto,
  type InboxDto,
  type InboxFirstScreenDto,
  type InboxItemDto,
  type InboxRowDto,
  toJsonSchemaDto,
} from "../dto.ts";
import {
  decodePendingCursor,
  encodePendingCursor,
  type PendingCursor,
  type PendingRow,
  pendingApprovals,
  pendingPageEnd,
  pendingSummary,
  readPending,
} from "../db/approvals.ts";
import type { UnreadableRow } from "../db/read-models.ts";
import { runSummaries } from "../db/read-models.ts";
import { approvalMatchesText } from "../db/search.ts";
import { type ApprovalRecord, argsHash, mayDecide, questionOf, rootRunOf } from "../runner/index.ts";
import { parseOr400 } from "../validation.ts";
import { authorize } from "./access.ts";
import { confirmOf } from "./confirm.ts";
import { inboxFiltersSchema } from "./schemas.ts";

// Without the agents (tests that read the inbox alone) arguments read without their schemas' display hints.
type Ctx = Pick<AppContext, "db"> & Partial<Pick<AppContext, "agents">>;
type InboxInput = { query: unknown; ifNoneMatch?: string | null };

/**
 * The text search as a test of a record (none: undefined, nothing to test). It reads the arguments, which
 * are in the record only; the other filters, a routed group's included, are the query's (lib/db/approvals.ts).
 */
export function approvalSearch(f: { q?: string }): ((a: ApprovalRecord) => boolean) | undefined {
  const { q } = f;
  return q === undefined ? undefined : (a) => approvalMatchesText(a, q);
}

/** Approvals per inbox page; the rest are on the pages its nextCursor leads to. */
export const INBOX_PAGE = 200;

/** Rows a page reads at most to fill itself when a search matches few of them; its nextCursor goes on from there. */
const MAX_SCAN = 5000;

const builtInboxes = new Map<string, Omit<InboxDto, "asOfMs">>();

export async function listInbox(ctx: Ctx, actor: Actor | null, { query }: { query: unknown }): Promise<InboxDto> {
  return (await inboxPage(ctx, actor, { query })).inbox!;
}

/** One page of the inbox and its ETag; `inbox` is null when `ifNoneMatch` names the current ETag (a 304). */
export async function inboxPage(
  ctx: Ctx,
  actor: Actor | null,
  { query, ifNoneMatch = null }: InboxInput,
): Promise<{ etag: string; inbox: InboxDto | null }> {
  const who = authorize(actor, "approvals:decide");
  const f = parseOr400(inboxFiltersSchema, query);
  const after = f.cursor === undefined ? null : decodePendingCursor(f.cursor);
  if (f.cursor !== undefined && !after) throw new ValidationError("cursor", "Not a cursor of this inbox: use the nextCursor of a page");
  const filter = { agent: f.agent, tool: f.tool, framework: f.framework, group: f.group };
  const match = approvalSearch(f);
  // A page holds INBOX_PAGE readable approvals that the search matches: past an unreadable row, or a row the
  // search does not match, it reads on (a search at most MAX_SCAN rows). Each row is read once.
  const rows: PendingRow[] = [];
  const read: { approvals: ApprovalRecord[]; corrupt: UnreadableRow[] } = { approvals: [], corrupt: [] };
  let next: PendingCursor | null = after;
  do {
    const page = await pendingApprovals(ctx.db, { ...filter, after: next, take: INBOX_PAGE - read.approvals.length });
    const { approvals, corrupt } = readPending(page.rows);
    rows.push(...page.rows);
    read.approvals.push(...(match ? approvals.filter(match) : approvals));
    read.corrupt.push(...corrupt);
    next = page.next;
  } while (next && read.approvals.length < INBOX_PAGE && rows.length < MAX_SCAN);
  const nextCursor = next && encodePendingCursor(next);
  // Routing decides what this reviewer may decide: their groups are part of what the answer depends on.
  const groups = routingGroupsOf(who);
  const h = createHash("sha256").update(`${who.email}\n${JSON.stringify(groups)}\n${JSON.stringify(f)}\n`);
  // The same bytes as one update per row's id and text each, in one call (800 calls into the hash were a
  // tenth of the inbox's data work).
  h.update(rows.map((r) => `${r.id}\0${r.text}\0`).join(""));
  // Whether a next page exists is part of the answer too: the same 200 rows with one more behind them
  // must not be answered with the copy built when nothing was behind them.
  h.update(nextCursor ?? "-");
  const etag = `"${h.digest("base64url").slice(0, 27)}"`;
  if (ifNoneMatch?.split(/\s*,\s*/).includes(etag)) return { etag, inbox: null };
  let built = builtInboxes.get(etag);
  if (!built) {
    built = { approvals: await inboxItems(ctx, who, read.approvals), corrupt: corruptItems(read.corrupt), nextCursor };
    builtInboxes.set(etag, built);
    if (builtInboxes.size > 16) builtInboxes.delete(builtInboxes.keys().next().value!);
  }
  return { etag, inbox: { ...built, asOfMs: Date.now() } };
}

export async function pendingCount(ctx: Ctx, actor: Actor | null) {
  authorize(actor, "approvals:decide");
  return { pending: (await pendingSummary(ctx.db)).count };
}

// The JSON schema of a tool's arguments (its display hints); toJsonSchemaDto builds each schema's once.
function argsSchemaOf(ctx: Ctx, a: ApprovalRecord): unknown {
  if (a.external) return a.external.args_schema ?? null;
  // An MCP server's tools are known once its agent has run in this process; until then, no hints.
  const schema = ctx.agents?.toolsOf(a.agent_name).find((t) => t.name === a.tool_name)?.schema;
  return schema ? toJsonSchemaDto(schema) : null;
}

function summaryOf(a: ApprovalRecord, hints: unknown): string {
  if (a.kind === "question") return questionOf(a.args);
  if (a.kind === "llm") {
    const f = gateFacts(a.args);
    return `Model call of step ${a.step} with ${f.model}: ${gateWords(f)} so far`;
  }
  return summarizeArgs(a.approved_args ?? a.args, hints);
}

// Each approval as the inbox lists it (its root run's agent and submitter read for all of them at once).
async function inboxItems(ctx: Ctx, who: Actor, approvals: ApprovalRecord[]): Promise<InboxItemDto[]> {
  const groups = routingGroupsOf(who);
  const roots = await runSummaries(ctx.db, [...new Set(approvals.map((a) => a.root_run_id))]);
  const byId = new Map(roots.map((r) => [r.id, r]));
  return approvals.map((a) => {
    const hints = a.kind === "tool" ? argsSchemaOf(ctx, a) : null;
    return {
      id: a.id,
      runId: a.root_run_id,
      subRunId: a.run_id === a.root_run_id ? null : a.run_id,
      agent: a.agent_name,
      rootAgent: byId.get(a.root_run_id)?.agentName ?? a.agent_name,
      forkedFrom: byId.get(a.root_run_id)?.forkedFromRunId ?? null,
      confirm: a.kind === "tool" ? confirmOf(ctx.agents, a, argsSchemaOf(ctx, a)) : null,
      tool: a.tool_name,
      kind: a.kind,
      summary: summaryOf(a, hints),
      reason: a.reason,
      requestedBy: a.requested_by ?? byId.get(a.root_run_id)?.submittedByEmail ?? null,
      requestedAtMs: a.requested_at_ms,
      deadlineMs: a.deadline_ms,
      quorum: a.quorum,
      groups: a.groups,
      canDecide: mayDecide(a, groups),
      approvals: a.decisions.filter((d) => d.decision === "approve").length,
      decidedByMe: a.decisions.some((d) => d.by === who.email),
      argsHash: argsHash(a.approved_args ?? a.args),
      version: a.version,
    };
  });
}

// A corrupt approval is listed but never offered for a decision.
const corruptItems = (corrupt: UnreadableRow[]): InboxCorruptDto[] =>
  corrupt.map((c) => ({
    key: c.key,
    runId: c.runId ? rootRunOf(c.runId) : null,
    error: "AgentCheckpointCorruptionError" as const,
    message: c.message,
  }));

// ---- The inbox page's first screen ----

const toRow = ({ reason: _reason, version: _version, ...row }: InboxItemDto): InboxRowDto => row;
// What this reviewer may decide comes first; the rest is listed read-only below it.
const routed = <T extends { canDecide: boolean }>(all: T[]): T[] => [...all.filter((a) => a.canDecide), ...all.filter((a) => !a.canDecide)];

/**
 * The inbox page's first screen: the first `rows` rows of the unfiltered first page in the order the list
 * shows them (routed), the page's count and next cursor; the whole page when it has no more rows than that
 * (nothing to load after hydration). It reads and parses only the first rows: when `rows` approvals this
 * reviewer may decide are among the first `rows` + 1 pending rows (the usual inbox), the page's count and
 * cursor come from one indexed statement that reads no record (pendingPageEnd), and an unreadable
 * record past the rows read is listed once the browser has the whole page; otherwise (routing puts other
 * rows first, or unreadable records are among them) it is the first screen of the whole page, read as
 * /api/approvals reads it.
 */
export async function inboxFirstScreen(ctx: Ctx, actor: Actor | null, rows: number): Promise<InboxFirstScreenDto> {
  const who = authorize(actor, "approvals:decide");
  const groups = routingGroupsOf(who);
  const asOfMs = Date.now();
  const head = await pendingApprovals(ctx.db, { take: rows + 1 });
  const { approvals: ok, corrupt: bad } = readPending(head.rows);
  if (head.rows.length <= rows) {
    const approvals = (await inboxItems(ctx, who, ok)).map(toRow);
    return { approvals, corrupt: corruptItems(bad), nextCursor: null, asOfMs };
  }
  const first = ok.filter((a) => mayDecide(a, groups)).slice(0, rows);
  if (first.length === rows && !bad.length) {
    const end = await pendingPageEnd(ctx.db, INBOX_PAGE);
    const approvals = (await inboxItems(ctx, who, first)).map(toRow);
    return { approvals, corrupt: [], nextCursor: end.next && encodePendingCursor(end.next), asOfMs, firstScreenOf: end.rows };
  }
  const whole = await listInbox(ctx, who, { query: {} });
  const approvals = whole.approvals.length > rows ? routed(whole.approvals).slice(0, rows) : whole.approvals;
  return {
    ...whole,
    approvals: approvals.map(toRow),
    ...(whole.approvals.length > rows ? { firstScreenOf: whole.approvals.length } : {}),
  };
}
