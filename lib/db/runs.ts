// Run rows (the console's summary of each top-level run) and the lease protocol that decides which
// process executes a run: reserve, claim, take over, renew, release, and the epoch-fenced row writes.
import { Prisma, type Run as PrismaRun } from "../generated/sqlite/client.ts";
import { RUN, type RunState } from "../runner/index.ts";
import { NOTHING_PENDING_IN_TREE } from "./approvals.ts";
import { type Db, executeSql, queryRows } from "./client.ts";
import { bigintOf, boolOf, dateOf, type Row } from "./driver.ts";
import { cursorPage } from "./pagination.ts";
import { LIVE_STATES, QUEUED, moveTo, movesFrom, ROW_MOVES, type RowMoveName, targetOf } from "./run-moves.ts";
import { runSearchSql } from "./search.ts";

/** A Run row; its state is one of the runner's (lib/db/run-moves.ts has the moves between them). */
export type Run = Omit<PrismaRun, "state"> & { state: RunState };

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
      state: targetOf("create"),
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

export const runFromRow = (r: Row): Run => ({
  id: r.id as string,
  threadId: r.threadId as string,
  agentName: r.agentName as string,
  state: r.state as RunState,
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
  runtimeTokenId: (r.runtimeTokenId as string | null) ?? null,
  externalId: (r.externalId as string | null) ?? null,
  framework: (r.framework as string | null) ?? null,
  labels: (r.labels as string | null) ?? null,
  metadata: (r.metadata as string | null) ?? null,
  traceContext: (r.traceContext as string | null) ?? null,
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

// Nothing here reserves, takes over or recovers an external run (runtimeTokenId set): its own runtime
// executes it, and a decision on it is claimed by that runtime (lib/db/runtime.ts), never resumed here.

// Reserve a run for execution (ROW_MOVES.reserve): from `from` to running, owned by the placeholder
// QUEUED, with a new fencing epoch (one more than any before it). Every execution starts with a
// reservation, so each has its own epoch; the worker that claims the reservation writes under it.
export async function reserveRun(db: Db, id: string, from: RunState, leaseMs: number, cancel: boolean): Promise<boolean> {
  if (!movesFrom("reserve", from)) throw new Error(`A run is never reserved from ${from}`);
  const until = BigInt(Date.now() + leaseMs);
  return (
    (await db.$executeRaw`UPDATE "Run" SET "state" = ${literal(targetOf("reserve"))}, "leaseOwner" = ${literal(QUEUED)}, "leaseUntilMs" = ${until}, "leaseEpoch" = "leaseEpoch" + 1, "cancelRequested" = ("cancelRequested" OR ${cancel}) WHERE "id" = ${id} AND "state" = ${from} AND "corruptKey" IS NULL AND "runtimeTokenId" IS NULL`) ===
    1
  );
}

// Re-reserve a running run whose lease expired (its worker died or stalled), or — any=true, single
// instance only — any running run (ROW_MOVES.takeOver): back to QUEUED under a new epoch, which fences its previous worker
// out at once (its next write, renewal or outcome is refused). Its cancel flag stays. epoch: only if the
// run is still under the reservation the caller found expired (two sweeps, or a claim meanwhile).
export async function takeOver(db: Db, id: string, leaseMs: number, any = false, epoch?: number): Promise<boolean> {
  const now = BigInt(Date.now());
  const until = BigInt(Date.now() + leaseMs);
  const same = epoch === undefined ? Prisma.sql`TRUE` : Prisma.sql`"leaseEpoch" = ${epoch}`;
  return (
    (await db.$executeRaw`UPDATE "Run" SET "leaseOwner" = ${literal(QUEUED)}, "leaseUntilMs" = ${until}, "leaseEpoch" = "leaseEpoch" + 1
    WHERE "id" = ${id} AND ${fromSql("takeOver")} AND "corruptKey" IS NULL AND "runtimeTokenId" IS NULL AND ${same} AND (${any} OR "leaseUntilMs" IS NULL OR "leaseUntilMs" < ${now})`) ===
    1
  );
}

// A claim takes a reservation (exactly one worker wins it) and returns its fencing epoch, or null when
// the run is not reserved (someone else claimed it). Runs found corrupt are never claimed: they would only
// fail again.
export async function claimReserved(db: Db, id: string, owner: string, leaseMs: number): Promise<number | null> {
  const until = BigInt(Date.now() + leaseMs);
  const rows = await db.$queryRaw<{ leaseEpoch: number | bigint }[]>`UPDATE "Run" SET "leaseOwner" = ${owner}, "leaseUntilMs" = ${until}
    WHERE "id" = ${id} AND ${fromSql("hold")} AND "leaseOwner" = ${literal(QUEUED)} AND "corruptKey" IS NULL RETURNING "leaseEpoch"`;
  return rows.length === 1 ? Number(rows[0].leaseEpoch) : null;
}

export { QUEUED };

// States go into the SQL as literals, as a hand-written statement has them (the plans and the bound
// values of every statement stay what they were): they come from the runner's RUN_STATES, never from input.
const literal = (s: RunState | typeof QUEUED) => {
  if (!/^[a-z]+$/.test(s)) throw new Error(`Not a run state: ${s}`);
  return Prisma.raw(`'${s}'`);
};

/** SQL: the row's state is one of these. */
const stateInSql = (states: readonly RunState[]) =>
  states.length === 1 ? Prisma.sql`"state" = ${literal(states[0])}` : Prisma.sql`"state" IN (${Prisma.join(states.map(literal))})`;

/** SQL: the row's state is one the move starts from. */
const fromSql = (move: RowMoveName) => stateInSql(ROW_MOVES[move].from);

export type ExpiredLease = { id: string; leaseOwner: string | null; leaseEpoch: number; leaseUntilMs: bigint | null };

// Running runs whose lease expired, the longest expired first. A QUEUED one is listed too: whether its
// job still holds it is the queue's to say (see Dispatcher.takeOverExpired).
export async function expiredLeases(db: Db): Promise<ExpiredLease[]> {
  return db.run.findMany({
    where: {
      state: { in: [...ROW_MOVES.takeOver.from] },
      corruptKey: null,
      runtimeTokenId: null,
      OR: [{ leaseUntilMs: null }, { leaseUntilMs: { lt: BigInt(Date.now()) } }],
    },
    select: { id: true, leaseOwner: true, leaseEpoch: true, leaseUntilMs: true },
    orderBy: [{ leaseUntilMs: "asc" }, { id: "asc" }],
    take: 100,
  });
}

// Renews the leases this process still holds (same owner, same epoch) and answers which those are.
export async function renewLeases(db: Db, held: { id: string; epoch: number }[], owner: string, leaseMs: number) {
  if (!held.length) return [];
  const until = BigInt(Date.now() + leaseMs);
  const conds = held.map((h) => Prisma.sql`("id" = ${h.id} AND "leaseEpoch" = ${h.epoch})`);
  return db.$queryRaw<{ id: string; cancelRequested: boolean | number }[]>`UPDATE "Run" SET "leaseUntilMs" = ${until}
    WHERE "leaseOwner" = ${owner} AND ${fromSql("hold")} AND (${Prisma.join(conds, " OR ")}) RETURNING "id", "cancelRequested"`;
}

// Hand a run back: its lease expires now, so any instance takes it over.
export async function releaseLease(db: Db, id: string, owner: string) {
  await db.$executeRaw`UPDATE "Run" SET "leaseUntilMs" = ${BigInt(Date.now() - 1)} WHERE "id" = ${id} AND "leaseOwner" = ${owner}`;
}

const clearedLease = { leaseOwner: null, leaseUntilMs: null, cancelRequested: false };

// A run no execution will finish (ROW_MOVES.settle); a run that goes on running keeps its lease.
export const setRunState = (db: Db, id: string, data: { state: RunState; error?: string | null; finishedAt?: Date | null }) =>
  db.run.update({
    where: { id },
    data: { ...data, state: moveTo("settle", data.state), ...(data.state === RUN.running ? {} : clearedLease) },
  });

// One conditional UPDATE, written by hand: the columns given, plus updatedAt.
function setClause(data: Record<string, string | number | boolean | Date | null | undefined>): Prisma.Sql {
  const sets = Object.entries(data)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => Prisma.sql`${Prisma.raw(`"${k}"`)} = ${v}`);
  return Prisma.join([...sets, Prisma.sql`"updatedAt" = ${new Date()}`], ", ");
}

// Worker writes to the Run row are conditional on the claim's epoch, like its store writes. Progress is
// written several times a step: through the driver, not Prisma's engine (about 25 promises a statement).
export const updateRunProgress = (db: Db, id: string, epoch: number, p: { step?: number; phase?: string }) =>
  executeSql(db, Prisma.sql`UPDATE "Run" SET ${setClause(p)} WHERE "id" = ${id} AND ${fromSql("hold")} AND "leaseEpoch" = ${epoch}`);

// Only the current claim writes the outcome: a worker that lost its lease cannot overwrite its successor's.
export async function finishRunRow(
  db: Db,
  id: string,
  epoch: number,
  r: {
    state: RunState;
    step?: number;
    model?: string;
    totalTokens?: number;
    costUsd?: number;
    error: string | null;
    phase?: string;
    finishedAt: Date | null;
    corruptKey?: string | null;
    /** Traces: the segment that stopped here (lib/telemetry/segments.ts); undefined leaves it as it is. */
    traceContext?: string;
  },
) {
  const set = setClause({ ...r, state: moveTo("finish", r.state), ...clearedLease });
  return db.$executeRaw`UPDATE "Run" SET ${set} WHERE "id" = ${id} AND ${fromSql("finish")} AND "leaseEpoch" = ${epoch}`;
}

// Traces: a decision on a paused run adds its request's context for the resumed segment's links (inside
// the decision's transaction, which holds the run's row lock).
export async function updateTraceContext(db: Db, id: string, update: (current: string | null) => string) {
  const [r] = await queryRows(db, Prisma.sql`SELECT "traceContext" FROM "Run" WHERE "id" = ${id}`);
  if (!r) return;
  await db.$executeRaw`UPDATE "Run" SET "traceContext" = ${update((r.traceContext as string | null) ?? null)} WHERE "id" = ${id}`;
}

// A reader found one of the run's records unreadable: the run is marked so nothing claims it again.
export async function markRunCorrupt(db: Db, id: string, key: string | null) {
  return db.$executeRaw`UPDATE "Run" SET "corruptKey" = ${key ?? "(unknown key)"} WHERE "id" = ${id} AND "corruptKey" IS NULL`;
}

// Asks a running run to stop (its worker's heartbeat sees the flag). True when the run was running.
export async function requestCancel(db: Db, id: string): Promise<boolean> {
  return (await db.$executeRaw`UPDATE "Run" SET "cancelRequested" = TRUE WHERE "id" = ${id} AND ${fromSql("hold")}`) === 1;
}

/** The runs list's filter for runs ready to resume (a paused run's state, narrowed by READY). */
export const READY_STATE = "ready";

// Ready to resume: a paused run of the console's own (an external runtime resumes its runs), readable, with
// no request of it or of its subagents pending. Paused runs of agents that resume by themselves are ready
// only for the moment between a decision and its resume; those of agents that opted out wait here for
// someone to press Resume. One probe of the approvals' [rootRunId, status] index.
const READY = Prisma.sql`("Run"."state" = ${literal(RUN.paused)} AND "Run"."runtimeTokenId" IS NULL AND "Run"."corruptKey" IS NULL AND ${NOTHING_PENDING_IN_TREE})`;

export type RunFilters = {
  state?: RunState | typeof READY_STATE;
  agent?: string;
  framework?: string;
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
  const where = runWhere(f);
  const rows = await queryRows(
    db,
    Prisma.sql`SELECT *, CASE WHEN ${READY} THEN 1 ELSE 0 END AS "ready" FROM "Run"
      ${where.length ? Prisma.sql`WHERE ${Prisma.join(where, " AND ")}` : Prisma.empty}
      ORDER BY "createdAt" DESC, "id" DESC LIMIT ${take + 1}`,
  );
  const { page, nextCursor } = cursorPage(
    rows.map((r) => ({ ...runFromRow(r), ready: Number(r.ready) === 1 })),
    take,
    (r) => r.id,
  );
  return { runs: page, nextCursor };
}

/** How many runs the filters match, counted up to `cap` (a saved view's count in the navigation). */
export async function countRunRows(db: Db, f: RunFilters, cap: number): Promise<number> {
  const where = runWhere({ ...f, cursor: undefined });
  const [r] = await queryRows(
    db,
    Prisma.sql`SELECT COUNT(*) AS "n" FROM (SELECT 1 FROM "Run"
      ${where.length ? Prisma.sql`WHERE ${Prisma.join(where, " AND ")}` : Prisma.empty} LIMIT ${cap}) AS "m"`,
  );
  return Number(r?.n ?? 0);
}

function runWhere(f: RunFilters): Prisma.Sql[] {
  const at = (col: "createdAt" | "id") => Prisma.sql`(SELECT ${Prisma.raw(`"${col}"`)} FROM "Run" WHERE "id" = ${f.cursor})`;
  return [
    f.state === READY_STATE && Prisma.sql`${stateInSql([RUN.paused])} AND ${READY}`,
    f.state !== undefined && f.state !== READY_STATE && Prisma.sql`"state" = ${f.state}`,
    f.agent !== undefined && Prisma.sql`"agentName" = ${f.agent}`,
    f.framework !== undefined && Prisma.sql`"framework" = ${f.framework}`,
    f.submitter !== undefined && Prisma.sql`"submittedByEmail" = ${f.submitter}`,
    f.onlySubmittedById !== undefined && Prisma.sql`"submittedById" = ${f.onlySubmittedById}`,
    f.q && runSearchSql(f.q),
    f.from && Prisma.sql`"createdAt" >= ${f.from}`,
    f.to && Prisma.sql`"createdAt" <= ${f.to}`,
    f.cursor && Prisma.sql`"createdAt" <= ${at("createdAt")} AND NOT ("createdAt" = ${at("createdAt")} AND "id" >= ${at("id")})`,
  ].filter((c): c is Prisma.Sql => !!c);
}

export const orphanRuns = (db: Db) =>
  db.run.findMany({
    where: { state: { in: [...ROW_MOVES.recover.from] }, corruptKey: null, runtimeTokenId: null },
    select: { id: true, threadId: true, agentName: true, state: true },
    take: 1000,
  });

export async function runCounts(db: Db) {
  const rows = await queryRows(
    db,
    Prisma.sql`SELECT "state", COUNT(*) AS "n" FROM "Run" WHERE ${stateInSql(LIVE_STATES)} GROUP BY "state"`,
  );
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)])) as Partial<Record<RunState, number>>;
}
