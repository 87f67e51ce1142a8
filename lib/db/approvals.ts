// Every statement on approvals (the Approval and ApprovalGroup tables): the runner's approvals port on
// Prisma, written in the transaction of the store it belongs to, and the one query of pending approvals
// with its filters (the inbox's pages, its search, first screen and badge, the sweep, a run's pending
// requests, notifications' planning, the metrics, the runs list's "ready").
// Records are returned as stored text; lib/runner/approvals.ts reads and validates them.
import { Prisma } from "../generated/sqlite/client.ts";
import { type Db, executeSql, queryRows } from "./client.ts";
import {
  type ApprovalRecord,
  type ApprovalRow,
  type ApprovalStore,
  type StoredApproval,
  approvalName,
  deepFreeze,
  readApprovals,
} from "../runner/index.ts";
import { type ApprovalLabels, approvalClosed, approvalRequested, type ClosedApproval } from "../metrics.ts";
import { LIVE_STATES } from "./run-moves.ts";

const big = (n: number | null) => (n === null ? null : BigInt(Math.trunc(n)));
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

// The closing decision's columns: the last decision once the request is no longer pending.
function closing(row: ApprovalRow): { by: string | null; decision: string | null } {
  const last = row.status === "pending" ? undefined : row.decisions.at(-1);
  return { by: last?.by ?? null, decision: last?.decision ?? null };
}

export type ApprovalStoreOptions = {
  /** The condition every write carries (a fenced store's claim); TRUE when unfenced. */
  held: Prisma.Sql;
  /** Called when a write changed nothing: throws when the claim is stale. */
  assertFence: () => Promise<void>;
  /** Count requests and closings in the metrics (false on a transaction: its caller counts after commit). */
  count: boolean;
};

/** The runner's approvals port on this database (or transaction). */
export class PrismaApprovals implements ApprovalStore {
  constructor(
    private readonly db: Db,
    private readonly o: ApprovalStoreOptions,
  ) {}

  async create(row: ApprovalRow, text: string): Promise<boolean> {
    const c = closing(row);
    const n = await executeSql(
      this.db,
      Prisma.sql`INSERT INTO "Approval" ("id", "threadId", "runId", "rootRunId", "step", "toolCallId", "kind", "agentName", "toolName", "status",
        "version", "requestedAtMs", "deadlineMs", "decidedAtMs", "decidedBy", "decision", "record")
      SELECT ${row.id}, ${row.thread_id}, ${row.run_id}, ${row.root_run_id}, ${row.step}, ${row.tool_call_id}, ${row.kind}, ${row.agent_name},
        ${row.tool_name}, ${row.status}, ${row.version}, CAST(${big(row.requested_at_ms)} AS BIGINT), CAST(${big(row.deadline_ms)} AS BIGINT),
        CAST(${big(row.decided_at_ms)} AS BIGINT), ${c.by}, ${c.decision}, ${text}
      WHERE ${this.o.held}
      ON CONFLICT ("id") DO NOTHING`,
    );
    if (n === 0) {
      await this.o.assertFence();
      return false;
    }
    const groups = [...new Set(row.groups)];
    if (groups.length)
      await executeSql(
        this.db,
        Prisma.sql`INSERT INTO "ApprovalGroup" ("approvalId", "group") VALUES ${Prisma.join(groups.map((g) => Prisma.sql`(${row.id}, ${g})`))}
          ON CONFLICT DO NOTHING`,
      );
    if (this.o.count) approvalRequested(row as unknown as ApprovalLabels);
    return true;
  }

  // One autocommit statement conditional on the version read: no read-then-write transaction for SQLite
  // to deadlock on between instances.
  async compareAndSet(row: ApprovalRow, text: string, expectedVersion: number): Promise<boolean> {
    const c = closing(row);
    const n = await executeSql(
      this.db,
      Prisma.sql`UPDATE "Approval" SET "status" = ${row.status}, "version" = ${row.version}, "decidedAtMs" = CAST(${big(row.decided_at_ms)} AS BIGINT),
        "decidedBy" = ${c.by}, "decision" = ${c.decision}, "record" = ${text}
      WHERE "id" = ${row.id} AND "version" = ${expectedVersion} AND ${this.o.held}`,
    );
    if (n === 0) {
      await this.o.assertFence();
      return false;
    }
    if (this.o.count && row.status !== "pending") approvalClosed(row as unknown as ClosedApproval);
    return true;
  }

  async get(threadId: string, id: string): Promise<StoredApproval | undefined> {
    const [r] = await queryRows(this.db, Prisma.sql`SELECT "record" FROM "Approval" WHERE "id" = ${id} AND "threadId" = ${threadId}`);
    return r ? { id, key: approvalName(id), text: r.record as string } : undefined;
  }

  async list(threadId: string, runId: string, scope: "run" | "tree"): Promise<StoredApproval[]> {
    // A subagent's run id is `<parent>.<call>`: its requests are the tree's (exactly that prefix, compared bytewise).
    const runs =
      scope === "run"
        ? Prisma.sql`"runId" = ${runId}`
        : Prisma.sql`("runId" = ${runId} OR substr("runId", 1, ${runId.length + 1}) = ${`${runId}.`})`;
    const rows = await queryRows(
      this.db,
      Prisma.sql`SELECT "id", "record" FROM "Approval" WHERE "threadId" = ${threadId} AND ${runs} ORDER BY "runId", "step", "toolCallId"`,
    );
    return rows.map((r) => ({ id: r.id as string, key: approvalName(r.id as string), text: r.record as string }));
  }
}

// ---- Pending approvals: the one query, with its filters ----

/** What a reader of pending approvals may narrow them to. */
export type PendingFilter = {
  agent?: string;
  tool?: string;
  /** Only the approvals of the unfinished runs an external runtime of this framework registered. */
  framework?: string;
  /** Only the approvals of this root run's tree (the run and its subagents). */
  rootRunId?: string;
  /** Routing: only those a decider in these groups may decide (unrouted ones included). */
  decidableBy?: readonly string[];
  /** Search: only those routed to this group (a saved view's queue). */
  group?: string;
};

/** A position in the pending list (oldest first: requested at, then id). */
export type PendingCursor = { ts: number; id: string };

export const encodePendingCursor = (c: PendingCursor) => Buffer.from(JSON.stringify([c.ts, c.id])).toString("base64url");

/** The position a cursor names; null when it is not one encodePendingCursor wrote. */
export function decodePendingCursor(cursor: string): PendingCursor | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === "string") return { ts: v[0], id: v[1] };
  } catch {}
  return null;
}

function pendingWhere(f: PendingFilter): Prisma.Sql {
  const and: Prisma.Sql[] = [Prisma.sql`"status" = 'pending'`];
  if (f.agent !== undefined) and.push(Prisma.sql`"agentName" = ${f.agent}`);
  if (f.tool !== undefined) and.push(Prisma.sql`"toolName" = ${f.tool}`);
  if (f.rootRunId !== undefined) and.push(Prisma.sql`"rootRunId" = ${f.rootRunId}`);
  if (f.framework !== undefined)
    and.push(Prisma.sql`"rootRunId" IN (SELECT "id" FROM "Run" WHERE "framework" = ${f.framework} AND "runtimeTokenId" IS NOT NULL
      AND "state" IN (${Prisma.join([...LIVE_STATES])}))`);
  if (f.group !== undefined)
    and.push(
      Prisma.sql`EXISTS (SELECT 1 FROM "ApprovalGroup" AS "g" WHERE "g"."approvalId" = "Approval"."id" AND "g"."group" = ${f.group})`,
    );
  if (f.decidableBy !== undefined) {
    const mine = f.decidableBy.length
      ? Prisma.sql` OR EXISTS (SELECT 1 FROM "ApprovalGroup" AS "g" WHERE "g"."approvalId" = "Approval"."id" AND "g"."group" IN (${Prisma.join([...f.decidableBy])}))`
      : Prisma.empty;
    and.push(Prisma.sql`(NOT EXISTS (SELECT 1 FROM "ApprovalGroup" AS "g" WHERE "g"."approvalId" = "Approval"."id")${mine})`);
  }
  return Prisma.join(and, " AND ");
}

/** One pending approval as read: its record's text and what the list is ordered by. */
export type PendingRow = { id: string; runId: string; version: number; requestedAtMs: number; text: string };

export type PendingPage = {
  rows: PendingRow[];
  /** Where the next page starts; null: this is the last. */
  next: PendingCursor | null;
};

/**
 * Pending approvals, oldest first (requested at, then id), matching the filter, `take` of them after
 * `after`: one indexed statement. Their records are read by readPending (a poll answered from the rows'
 * text alone parses none).
 */
export async function pendingApprovals(db: Db, f: PendingFilter & { after?: PendingCursor | null; take?: number }): Promise<PendingPage> {
  const take = f.take ?? 200;
  const after = f.after
    ? Prisma.sql` AND ("requestedAtMs" > CAST(${big(f.after.ts)} AS BIGINT) OR ("requestedAtMs" = CAST(${big(f.after.ts)} AS BIGINT) AND "id" > ${f.after.id}))`
    : Prisma.empty;
  const found = await queryRows(
    db,
    Prisma.sql`SELECT "id", "runId", "version", "requestedAtMs", "record" FROM "Approval" WHERE ${pendingWhere(f)}${after}
      ORDER BY "requestedAtMs" ASC, "id" ASC LIMIT ${take + 1}`,
  );
  // node-postgres answers BIGINT as text, better-sqlite3 as a number.
  const rows: PendingRow[] = found.slice(0, take).map((r) => ({
    id: r.id as string,
    runId: r.runId as string,
    version: Number(r.version),
    requestedAtMs: Number(r.requestedAtMs),
    text: r.record as string,
  }));
  const last = rows.at(-1);
  return { rows, next: found.length > take && last ? { ts: last.requestedAtMs, id: last.id } : null };
}

/**
 * The rows' records through the runner's reader; an unreadable one is set aside (named by key, with its run).
 * A record is read once per stored text in this process: every reviewer's browser polls the same pending
 * rows, and validating 200 records was most of an inbox answer. A cached record is frozen, so that no
 * caller can change what the next one reads; a row whose text changed (a decision, a hand edit) is read again.
 */
export function readPending(rows: PendingRow[]): { approvals: ApprovalRecord[]; corrupt: UnreadableApproval[] } {
  const approvals: ApprovalRecord[] = [];
  const corrupt: UnreadableApproval[] = [];
  for (const r of rows) {
    const kept = readRecords.get(r.id);
    const read = kept?.text === r.text ? kept : readRow(r);
    if ("ok" in read) approvals.push(read.ok);
    else corrupt.push(read.bad);
  }
  return { approvals, corrupt };
}

type ReadRecord = { text: string } & ({ ok: ApprovalRecord } | { bad: UnreadableApproval });
const readRecords = new Map<string, ReadRecord>();
/** Records kept read: a sweep's 5,000 pending rows, the inbox's 200 among them. */
const READ_RECORDS = 5000;

function readRow(r: PendingRow): ReadRecord {
  const { ok, bad } = readApprovals([{ id: r.id, key: approvalName(r.id), text: r.text, runId: r.runId }]);
  const entry: ReadRecord = ok.length ? { text: r.text, ok: deepFreeze(ok[0]) } : { text: r.text, bad: bad[0] };
  readRecords.delete(r.id);
  readRecords.set(r.id, entry);
  if (readRecords.size > READ_RECORDS) readRecords.delete(readRecords.keys().next().value!);
  return entry;
}

export type UnreadableApproval = { key: string; runId: string | null; message: string };

/** How many pending approvals match, and since when the oldest has waited: one statement on the same index. */
export async function pendingSummary(db: Db, f: PendingFilter = {}): Promise<{ count: number; oldestMs: number | null }> {
  const [r] = await queryRows(
    db,
    Prisma.sql`SELECT COUNT(*) AS "n", MIN("requestedAtMs") AS "oldest" FROM "Approval" WHERE ${pendingWhere(f)}`,
  );
  return { count: Number(r?.n ?? 0), oldestMs: num(r?.oldest) };
}

/**
 * Where a page of `take` pending approvals (unfiltered, from the start) ends, reading no record: how many
 * it holds and the cursor of the page after it.
 */
export async function pendingPageEnd(db: Db, take: number): Promise<{ rows: number; next: PendingCursor | null }> {
  const at = await queryRows(
    db,
    Prisma.sql`SELECT "id", "requestedAtMs" FROM "Approval" WHERE ${pendingWhere({})}
      ORDER BY "requestedAtMs" ASC, "id" ASC LIMIT 2 OFFSET ${take - 1}`,
  );
  if (at.length === 2) return { rows: take, next: { ts: Number(at[0].requestedAtMs), id: at[0].id as string } };
  if (at.length === 1) return { rows: take, next: null };
  return { rows: (await pendingSummary(db)).count, next: null };
}

/** The runs list's condition for a run with nothing pending in its tree (`run` names the Run row's alias). */
export const NOTHING_PENDING_IN_TREE = Prisma.sql`NOT EXISTS (SELECT 1 FROM "Approval" AS "a" WHERE "a"."rootRunId" = "Run"."id" AND "a"."status" = 'pending')`;
