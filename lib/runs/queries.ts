// Console reads of runner state (inbox, timeline). Every Prisma query of this area lives here.
import { Prisma, type Run } from "../generated/sqlite/client.ts";
import { type Db, queryRows } from "../db/client.ts";
import { bigintOf, boolOf, dateOf, type Row } from "../db/driver.ts";
import { cursorPage } from "../db/pagination.ts";
import {
  AgentCheckpointCorruptionError,
  type ApprovalRecord,
  type CheckpointRecord,
  normalizeCheckpointRecord,
  parseApproval,
  parseStoredText,
  SNAPSHOT_PHASES,
  TERMINAL_STATES,
  keys,
} from "../runner/index.ts";

// A row a reader could not read: its key, the run it belongs to (from the indexed column) and why.
export type UnreadableRow = { key: string; runId: string | null; message: string };

// Reads every row through the runner's validating reader; a bad row is set aside, never thrown, so one
// corrupt record cannot hide the good ones from a list.
function readAll<T>(
  rows: { key: string; value: string; runId?: string | null }[],
  read: (raw: unknown, key: string) => T,
): { ok: T[]; bad: UnreadableRow[] } {
  const ok: T[] = [];
  const bad: UnreadableRow[] = [];
  for (const r of rows) {
    try {
      ok.push(read(parseStoredText(r.value, r.key), r.key));
    } catch (e) {
      if (!(e instanceof AgentCheckpointCorruptionError) && !(e instanceof SyntaxError)) throw e;
      bad.push({
        key: r.key,
        runId: r.runId ?? null,
        message: e instanceof AgentCheckpointCorruptionError ? e.message : `Record is not valid JSON (key ${r.key})`,
      });
    }
  }
  return { ok, bad };
}

// Pending approvals, oldest first: one indexed statement ([kind, status, timestampMs]) per chunk, seeking
// past `after` (keyset on timestampMs, then key). `value` is the stored text (the inbox's ETag is computed from it).
export type PendingRow = { key: string; value: string; runId: string | null; timestampMs: number };
export type InboxCursor = { ts: number; key: string };

export async function pendingApprovalRows(db: Db, take = 200, after: InboxCursor | null = null): Promise<PendingRow[]> {
  const limit = Math.min(take, 1001);
  const rows = (await queryRows(
    db,
    Prisma.sql`SELECT "key", "value", "runId", "timestampMs" FROM "StateEntry" WHERE "kind" = 'approval' AND "status" = 'pending'
      ${after ? Prisma.sql`AND ("timestampMs" > ${after.ts} OR ("timestampMs" = ${after.ts} AND "key" > ${after.key}))` : Prisma.empty}
      ORDER BY "timestampMs" ASC, "key" ASC LIMIT ${limit}`,
  )) as { key: string; value: string; runId: string | null; timestampMs: unknown }[];
  // node-postgres answers BIGINT as text, better-sqlite3 as a number, Prisma as bigint.
  return rows.map((r) => ({ key: r.key, value: r.value, runId: r.runId, timestampMs: Number(r.timestampMs ?? 0) }));
}

// Every reviewer's browser polls the inbox, and the same rows are read on each poll (a 304 needs them for
// its ETag): a row's stored text is read once per process, and the result kept frozen, so no reader can
// change what the next one gets. Keyed by the text itself: a row that changes is a new entry; bounded.
const readRows = new Map<string, { ok: ApprovalRecord[]; bad: UnreadableRow[] }>();

function readApprovalRow(r: { key: string; value: string; runId: string | null }) {
  const id = `${r.key}\0${r.runId}\0${r.value}`;
  let read = readRows.get(id);
  if (!read) {
    read = deepFreeze(readAll([r], parseApproval));
    if (readRows.size >= 4096) readRows.clear();
    readRows.set(id, read);
  }
  return read;
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

export function readPendingApprovals(
  rows: { key: string; value: string; runId: string | null }[],
  opts: { agent?: string; tool?: string } = {},
): { approvals: ApprovalRecord[]; corrupt: UnreadableRow[] } {
  const read = rows.map(readApprovalRow);
  const ok = read.flatMap((x) => x.ok);
  const bad = read.flatMap((x) => x.bad);
  return {
    approvals: ok.filter((a) => (!opts.agent || a.agent_name === opts.agent) && (!opts.tool || a.tool_name === opts.tool)),
    corrupt: bad,
  };
}

export const encodeInboxCursor = (c: InboxCursor) => Buffer.from(JSON.stringify([c.ts, c.key])).toString("base64url");

/** The position an inbox cursor names; null when it is not one this module wrote. */
export function decodeInboxCursor(cursor: string): InboxCursor | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === "string") return { ts: v[0], key: v[1] };
  } catch {}
  return null;
}

// Filters (agent, tool) are in the stored JSON, not in indexed columns, so a filtered page reads chunks until
// it has `take` matches, at most `maxScan` rows; a page cut short by that bound still gives a cursor.
export async function pendingApprovalPage(
  db: Db,
  opts: { after?: InboxCursor | null; take?: number; agent?: string; tool?: string; maxScan?: number },
): Promise<{ rows: PendingRow[]; approvals: ApprovalRecord[]; corrupt: UnreadableRow[]; nextCursor: string | null }> {
  const take = opts.take ?? 200;
  const maxScan = opts.maxScan ?? 5000;
  const rows: PendingRow[] = [];
  const approvals: ApprovalRecord[] = [];
  const corrupt: UnreadableRow[] = [];
  let after = opts.after ?? null;
  while (rows.length < maxScan) {
    const chunk = await pendingApprovalRows(db, take + 1, after);
    for (const r of chunk) {
      // A row beyond a full page: there is a next page, and it starts after the last row read.
      if (approvals.length === take) return { rows, approvals, corrupt, nextCursor: after && encodeInboxCursor(after) };
      const read = readPendingApprovals([r], opts);
      rows.push(r);
      approvals.push(...read.approvals);
      corrupt.push(...read.corrupt);
      after = { ts: r.timestampMs, key: r.key };
    }
    if (chunk.length <= take) return { rows, approvals, corrupt, nextCursor: null };
  }
  return { rows, approvals, corrupt, nextCursor: after && encodeInboxCursor(after) };
}

export type TimelinePage = { checkpoints: CheckpointRecord[]; corrupt: UnreadableRow[]; nextCursor: string | null };

// A run's checkpoints in write order, paginated by key: page N costs the same as page 1.
export async function checkpointTimeline(
  db: Db,
  threadId: string,
  runId: string,
  opts: { cursor?: string; take?: number } = {},
): Promise<TimelinePage> {
  const take = Math.min(Math.max(opts.take ?? 100, 1), 500);
  const rows = (await queryRows(
    db,
    Prisma.sql`SELECT "key", "value" FROM "StateEntry" WHERE ${checkpointRange(threadId, runId)}
      ${opts.cursor ? Prisma.sql`AND "key" > ${opts.cursor}` : Prisma.empty} ORDER BY "key" ASC LIMIT ${take + 1}`,
  )) as { key: string; value: string }[];
  const { page, nextCursor } = cursorPage(rows, take, (r) => r.key);
  const { ok, bad } = readAll(page, normalizeCheckpointRecord);
  return { checkpoints: ok, corrupt: bad, nextCursor };
}

// The navigation badge every reviewer's browser polls: one count on the [kind, status, timestampMs] index.
export async function countPendingApprovals(db: Db): Promise<number> {
  const [r] = await queryRows(db, Prisma.sql`SELECT COUNT(*) AS "n" FROM "StateEntry" WHERE "kind" = 'approval' AND "status" = 'pending'`);
  return Number(r?.n ?? 0);
}

// ---- Run rows: the console's summary of each top-level run ----

export type NewRun = {
  id: string;
  agentName: string;
  input: unknown;
  submittedById: string | null;
  submittedByEmail: string | null;
  forkedFromRunId?: string;
  forkedFromSeq?: number;
  idempotencyKey?: string | null;
};

export const createRunRow = (db: Db, r: NewRun) =>
  db.run.create({
    data: {
      id: r.id,
      threadId: r.id,
      agentName: r.agentName,
      state: "pending",
      input: JSON.stringify(r.input),
      submittedById: r.submittedById,
      submittedByEmail: r.submittedByEmail,
      forkedFromRunId: r.forkedFromRunId,
      forkedFromSeq: r.forkedFromSeq,
      idempotencyKey: r.idempotencyKey ?? null,
    },
  });

// Every run-scoped request reads its run first; through Prisma's engine that one statement was a third
// of a small answer's server time. The row comes back exactly as Prisma's findUnique gives it.
export async function getRunRow(db: Db, id: string): Promise<Run | null> {
  const [r] = await queryRows(db, Prisma.sql`SELECT * FROM "Run" WHERE "id" = ${id}`);
  return r ? runFromRow(r) : null;
}

const runFromRow = (r: Row): Run => ({
  id: r.id as string,
  threadId: r.threadId as string,
  agentName: r.agentName as string,
  state: r.state as string,
  step: Number(r.step),
  phase: (r.phase as string | null) ?? null,
  input: r.input as string,
  submittedById: (r.submittedById as string | null) ?? null,
  submittedByEmail: (r.submittedByEmail as string | null) ?? null,
  model: (r.model as string | null) ?? null,
  totalTokens: Number(r.totalTokens),
  costUsd: Number(r.costUsd),
  forkedFromRunId: (r.forkedFromRunId as string | null) ?? null,
  forkedFromSeq: r.forkedFromSeq === null || r.forkedFromSeq === undefined ? null : Number(r.forkedFromSeq),
  leaseOwner: (r.leaseOwner as string | null) ?? null,
  leaseUntilMs: bigintOf(r.leaseUntilMs),
  cancelRequested: boolOf(r.cancelRequested),
  leaseEpoch: Number(r.leaseEpoch),
  corruptKey: (r.corruptKey as string | null) ?? null,
  idempotencyKey: (r.idempotencyKey as string | null) ?? null,
  prunedAt: dateOf(r.prunedAt),
  prunedCheckpoints: Number(r.prunedCheckpoints),
  error: (r.error as string | null) ?? null,
  createdAt: dateOf(r.createdAt) as Date,
  updatedAt: dateOf(r.updatedAt) as Date,
  finishedAt: dateOf(r.finishedAt),
});

export const runByIdempotencyKey = (db: Db, key: string) =>
  db.run.findUnique({ where: { idempotencyKey: key }, select: { id: true, agentName: true, input: true } });

// Takes the run's row lock as a transaction's first statement (a write, so SQLite takes its write lock
// up front and two instances cannot deadlock upgrading a read). Decisions on one run serialize on it.
export async function lockRun(db: Db, id: string): Promise<boolean> {
  return (await db.$executeRaw`UPDATE "Run" SET "state" = "state" WHERE "id" = ${id}`) === 1;
}

// ---- Leases. Each is one autocommit UPDATE (Prisma's updateMany reads first inside a transaction,
// which two SQLite connections can deadlock on). Times are epoch milliseconds: no time zones involved.

// Reserve a run for execution: from `from` to running, owned by the placeholder "queued".
export async function reserveRun(db: Db, id: string, from: string, leaseMs: number, cancel: boolean): Promise<boolean> {
  const until = BigInt(Date.now() + leaseMs);
  return (
    (await db.$executeRaw`UPDATE "Run" SET "state" = 'running', "leaseOwner" = 'queued', "leaseUntilMs" = ${until}, "cancelRequested" = ("cancelRequested" OR ${cancel}) WHERE "id" = ${id} AND "state" = ${from} AND "corruptKey" IS NULL`) ===
    1
  );
}

// A claim returns its fencing epoch (one more than any before it), or null when someone else holds the run.
// Runs found corrupt are never claimed: they would only fail again.
const epochOf = (rows: { leaseEpoch: number | bigint }[]) => (rows.length === 1 ? Number(rows[0].leaseEpoch) : null);

export async function claimReserved(db: Db, id: string, owner: string, leaseMs: number): Promise<number | null> {
  const until = BigInt(Date.now() + leaseMs);
  return epochOf(
    await db.$queryRaw<
      { leaseEpoch: number }[]
    >`UPDATE "Run" SET "leaseOwner" = ${owner}, "leaseUntilMs" = ${until}, "leaseEpoch" = "leaseEpoch" + 1
    WHERE "id" = ${id} AND "state" = 'running' AND "leaseOwner" = 'queued' AND "corruptKey" IS NULL RETURNING "leaseEpoch"`,
  );
}

// Claim a running run whose lease expired (its worker died or stalled), or — any=true, single instance
// only — any running run.
export async function takeOver(db: Db, id: string, owner: string, leaseMs: number, any = false): Promise<number | null> {
  const now = BigInt(Date.now());
  const until = BigInt(Date.now() + leaseMs);
  return epochOf(
    await db.$queryRaw<
      { leaseEpoch: number }[]
    >`UPDATE "Run" SET "leaseOwner" = ${owner}, "leaseUntilMs" = ${until}, "leaseEpoch" = "leaseEpoch" + 1
    WHERE "id" = ${id} AND "state" = 'running' AND "corruptKey" IS NULL AND (${any} OR "leaseUntilMs" IS NULL OR "leaseUntilMs" < ${now}) RETURNING "leaseEpoch"`,
  );
}

export async function expiredLeases(db: Db): Promise<string[]> {
  const rows = await db.run.findMany({
    where: { state: "running", corruptKey: null, OR: [{ leaseUntilMs: null }, { leaseUntilMs: { lt: BigInt(Date.now()) } }] },
    select: { id: true },
    take: 100,
  });
  return rows.map((r) => r.id);
}

// Renews the leases this process still holds (same owner, same epoch) and answers which those are.
export async function renewLeases(db: Db, held: { id: string; epoch: number }[], owner: string, leaseMs: number) {
  if (!held.length) return [];
  const until = BigInt(Date.now() + leaseMs);
  const conds = held.map((h) => Prisma.sql`("id" = ${h.id} AND "leaseEpoch" = ${h.epoch})`);
  return db.$queryRaw<{ id: string; cancelRequested: boolean | number }[]>`UPDATE "Run" SET "leaseUntilMs" = ${until}
    WHERE "leaseOwner" = ${owner} AND "state" = 'running' AND (${Prisma.join(conds, " OR ")}) RETURNING "id", "cancelRequested"`;
}

// Hand a run back: its lease expires now, so any instance takes it over.
export async function releaseLease(db: Db, id: string, owner: string) {
  await db.$executeRaw`UPDATE "Run" SET "leaseUntilMs" = ${BigInt(Date.now() - 1)} WHERE "id" = ${id} AND "leaseOwner" = ${owner}`;
}

const clearedLease = { leaseOwner: null, leaseUntilMs: null, cancelRequested: false };

export const setRunState = (db: Db, id: string, data: { state: string; error?: string | null; finishedAt?: Date | null }) =>
  db.run.update({ where: { id }, data: { ...data, ...(data.state === "running" ? {} : clearedLease) } });

// One conditional UPDATE, written by hand: the columns given, plus updatedAt.
function setClause(data: Record<string, string | number | boolean | Date | null | undefined>): Prisma.Sql {
  const sets = Object.entries(data)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => Prisma.sql`${Prisma.raw(`"${k}"`)} = ${v}`);
  return Prisma.join([...sets, Prisma.sql`"updatedAt" = ${new Date()}`], ", ");
}

// Worker writes to the Run row are conditional on the claim's epoch, like its store writes.
export async function updateRunProgress(db: Db, id: string, epoch: number, p: { step?: number; phase?: string }) {
  return db.$executeRaw`UPDATE "Run" SET ${setClause(p)} WHERE "id" = ${id} AND "state" = 'running' AND "leaseEpoch" = ${epoch}`;
}

// Only the current claim writes the outcome: a worker that lost its lease cannot overwrite its successor's.
export async function finishRunRow(
  db: Db,
  id: string,
  epoch: number,
  r: {
    state: string;
    step?: number;
    model?: string;
    totalTokens?: number;
    costUsd?: number;
    error: string | null;
    phase?: string;
    finishedAt: Date | null;
    corruptKey?: string | null;
  },
) {
  const set = setClause({ ...r, ...clearedLease });
  return db.$executeRaw`UPDATE "Run" SET ${set} WHERE "id" = ${id} AND "state" = 'running' AND "leaseEpoch" = ${epoch}`;
}

// A reader found one of the run's records unreadable: the run is marked so nothing claims it again.
export async function markRunCorrupt(db: Db, id: string, key: string | null) {
  return db.$executeRaw`UPDATE "Run" SET "corruptKey" = ${key ?? "(unknown key)"} WHERE "id" = ${id} AND "corruptKey" IS NULL`;
}

// Asks a running run to stop (its worker's heartbeat sees the flag). True when the run was running.
export async function requestCancel(db: Db, id: string): Promise<boolean> {
  return (await db.$executeRaw`UPDATE "Run" SET "cancelRequested" = TRUE WHERE "id" = ${id} AND "state" = 'running'`) === 1;
}

export type RunFilters = {
  state?: string;
  agent?: string;
  submitter?: string;
  from?: Date;
  to?: Date;
  q?: string;
  cursor?: string;
  take?: number;
  onlySubmittedById?: string;
};

// Newest first, by keyset: a page after the cursor run starts at an index seek on (createdAt, id) (or
// (state, createdAt) with a state filter), so page 10,000 costs what page 1 does. Prisma's own cursor
// option compared every row against the cursor's values instead (110 ms for the page at run 500,000 of
// 1,000,000 on SQLite). One statement through the driver: the cursor run's position is read inside it,
// and an unknown cursor matches nothing.
export async function listRunRows(db: Db, f: RunFilters) {
  const take = Math.min(Math.max(f.take ?? 50, 1), 200);
  const at = (col: "createdAt" | "id") => Prisma.sql`(SELECT ${Prisma.raw(`"${col}"`)} FROM "Run" WHERE "id" = ${f.cursor})`;
  const where = [
    f.state !== undefined && Prisma.sql`"state" = ${f.state}`,
    f.agent !== undefined && Prisma.sql`"agentName" = ${f.agent}`,
    f.submitter !== undefined && Prisma.sql`"submittedByEmail" = ${f.submitter}`,
    f.onlySubmittedById !== undefined && Prisma.sql`"submittedById" = ${f.onlySubmittedById}`,
    f.q && Prisma.sql`substr("id", 1, ${f.q.length}) = ${f.q}`,
    f.from && Prisma.sql`"createdAt" >= ${f.from}`,
    f.to && Prisma.sql`"createdAt" <= ${f.to}`,
    f.cursor && Prisma.sql`"createdAt" <= ${at("createdAt")} AND NOT ("createdAt" = ${at("createdAt")} AND "id" >= ${at("id")})`,
  ].filter((c): c is Prisma.Sql => !!c);
  const rows = await queryRows(
    db,
    Prisma.sql`SELECT * FROM "Run" ${where.length ? Prisma.sql`WHERE ${Prisma.join(where, " AND ")}` : Prisma.empty}
      ORDER BY "createdAt" DESC, "id" DESC LIMIT ${take + 1}`,
  );
  const { page, nextCursor } = cursorPage(rows.map(runFromRow), take, (r) => r.id);
  return { runs: page, nextCursor };
}

// ---- Timeline ----

// A run's checkpoint records: a range of the primary key (threadId, key), which on PostgreSQL compares
// bytewise (COLLATE "C"), so a page, a search or a count reads index entries of this run only (a
// condition on another column would fetch every row of the range: 18 ms to count 10,000, not 2).
function checkpointRange(threadId: string, runId: string): Prisma.Sql {
  const { from, to } = keys.checkpointKeyRange(runId);
  return Prisma.sql`"threadId" = ${threadId} AND "key" >= ${from} AND "key" < ${to}`;
}

// The seq is matched on the key in the index, so only the records found are read (matching `:NNNN:` over
// every row of the run read each of them: 10 ms of a 10,000-checkpoint run's diff, twice). Several seqs
// are found in one pass over the run's keys.
export async function checkpointsBySeq(db: Db, threadId: string, runId: string, seqs: number[]): Promise<Map<number, CheckpointRecord>> {
  const match = seqs.map((seq) => {
    const at = keys.checkpointSeqAt(runId, seq);
    return Prisma.sql`substr("key", ${at.offset}, ${at.text.length}) = ${at.text}`;
  });
  const rows = (await queryRows(
    db,
    Prisma.sql`SELECT "key", "value" FROM "StateEntry" WHERE ${checkpointRange(threadId, runId)} AND (${Prisma.join(match, " OR ")})`,
  )) as { key: string; value: string }[];
  const found = new Map<number, CheckpointRecord>();
  for (const r of rows) {
    const c = normalizeCheckpointRecord(parseStoredText(r.value, r.key), r.key);
    if (seqs.includes(c.seq)) found.set(c.seq, c);
  }
  return found;
}

export async function checkpointBySeq(db: Db, threadId: string, runId: string, seq: number): Promise<CheckpointRecord | null> {
  return (await checkpointsBySeq(db, threadId, runId, [seq])).get(seq) ?? null;
}

// The newest checkpoint with a full runtime snapshot at or before the given key (snapshot phases only).
export async function snapshotCheckpointAtOrBefore(db: Db, threadId: string, runId: string, key: string): Promise<CheckpointRecord | null> {
  const [row] = (await queryRows(
    db,
    Prisma.sql`SELECT "key", "value" FROM "StateEntry" WHERE ${checkpointRange(threadId, runId)}
      AND "key" <= ${key} AND "phase" IN (${Prisma.join([...SNAPSHOT_PHASES])}) ORDER BY "key" DESC LIMIT 1`,
  )) as { key: string; value: string }[];
  return row ? normalizeCheckpointRecord(parseStoredText(row.value, row.key), row.key) : null;
}

export async function countCheckpoints(db: Db, threadId: string, runId: string): Promise<number> {
  const [r] = await queryRows(db, Prisma.sql`SELECT COUNT(*) AS "n" FROM "StateEntry" WHERE ${checkpointRange(threadId, runId)}`);
  return Number(r?.n ?? 0);
}

// ---- Webhook deliveries ----

export const webhookDeliveries = (db: Db, runId: string) =>
  db.webhookDelivery.findMany({ where: { runId }, orderBy: { createdAt: "desc" }, take: 20 });

export async function checkpointTimestamp(db: Db, threadId: string, key: string): Promise<number | null> {
  const row = await db.stateEntry.findUnique({ where: { threadId_key: { threadId, key } }, select: { timestampMs: true } });
  return row?.timestampMs != null ? Number(row.timestampMs) : null;
}

// ---- Sweep and retention ----

export async function pendingApprovalRecords(db: Db) {
  const rows = await db.stateEntry.findMany({
    where: { kind: "approval", status: "pending" },
    select: { key: true, value: true, runId: true },
    take: 5000,
  });
  return readAll(rows, parseApproval);
}

export async function pausedRunIds(db: Db, agentNames: string[]): Promise<string[]> {
  if (!agentNames.length) return [];
  return (
    await db.run.findMany({ where: { state: "paused", corruptKey: null, agentName: { in: agentNames } }, select: { id: true }, take: 1000 })
  ).map((r) => r.id);
}

export const prunableRuns = (db: Db, before: Date, take: number) =>
  db.run.findMany({
    where: { state: { in: [...TERMINAL_STATES] }, finishedAt: { lt: before }, prunedAt: null },
    select: { id: true, threadId: true },
    take,
  });

// Deletes a run's checkpoint records except its terminal one (the latest copy is a different kind).
export async function pruneRunCheckpoints(db: Db, run: { id: string; threadId: string }): Promise<number> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.stateEntry.deleteMany({
      where: { threadId: run.threadId, runId: run.id, kind: "checkpoint", NOT: { phase: "run_terminal" } },
    });
    await tx.run.update({ where: { id: run.id }, data: { prunedAt: new Date(), prunedCheckpoints: { increment: count } } });
    return count;
  });
}

export const orphanRuns = (db: Db) =>
  db.run.findMany({
    where: { state: { in: ["running", "pending"] }, corruptKey: null },
    select: { id: true, threadId: true, agentName: true, state: true },
    take: 1000,
  });

export async function runCounts(db: Db) {
  const rows = await queryRows(
    db,
    Prisma.sql`SELECT "state", COUNT(*) AS "n" FROM "Run" WHERE "state" IN ('pending', 'running', 'paused') GROUP BY "state"`,
  );
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)])) as Record<string, number>;
}

export async function storeFaultRunIds(db: Db): Promise<string[]> {
  return (
    await db.run.findMany({
      where: { state: "failed", corruptKey: null, error: { startsWith: "CheckpointWriteError" } },
      select: { id: true },
      take: 100,
    })
  ).map((r) => r.id);
}

export async function strandedPendingRunIds(db: Db, createdBeforeMs: number): Promise<string[]> {
  return (
    await db.run.findMany({ where: { state: "pending", createdAt: { lt: new Date(createdBeforeMs) } }, select: { id: true }, take: 100 })
  ).map((r) => r.id);
}

export async function pendingApprovals(
  db: Db,
  opts: { agent?: string; tool?: string; take?: number } = {},
): Promise<{ approvals: ApprovalRecord[]; corrupt: UnreadableRow[] }> {
  const { approvals, corrupt } = await pendingApprovalPage(db, opts);
  return { approvals, corrupt };
}
