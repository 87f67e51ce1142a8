// The console's reads of runner state (pending approvals are lib/db/approvals.ts's): a run's checkpoint
// timeline and the look-ups of the diff, and a run's webhook deliveries. Rows are read through the runner's
// validating readers; a row that cannot be read is set aside, never thrown.
import { Prisma } from "../generated/sqlite/client.ts";
import {
  AgentCheckpointCorruptionError,
  type CheckpointRecord,
  parseStoredText,
  readCheckpoints,
  SNAPSHOT_PHASES,
  keys,
  windowsToRead,
} from "../runner/index.ts";
import { type Db, queryRows } from "./client.ts";
import { dateOf } from "./driver.ts";
import { cursorPage } from "./pagination.ts";

// A row a reader could not read: its key, the run it belongs to (from the indexed column) and why.
export type UnreadableRow = { key: string; runId: string | null; message: string };

// Reads every row through the runner's validating reader; a bad row is set aside, never thrown, so one
// corrupt record cannot hide the good ones from a list.
export function readAll<T>(
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
  const { ok, bad } = await readRecords(db, threadId, runId, page);
  return { checkpoints: ok, corrupt: bad, nextCursor };
}

// Checkpoint rows of a run, each read with the records before it in its window when it is stored as a
// change to them (lib/runner/record-codec.ts): those the rows lack are read in one range per window. A
// row that cannot be read is set aside, never thrown, so one corrupt record cannot hide the good ones.
async function readRecords(
  db: Db,
  threadId: string,
  runId: string,
  rows: { key: string; value: string }[],
): Promise<{ ok: CheckpointRecord[]; bad: UnreadableRow[] }> {
  const bad: UnreadableRow[] = [];
  const entries: { key: string; value: unknown }[] = [];
  for (const r of rows) {
    try {
      entries.push({ key: r.key, value: parseStoredText(r.value, r.key) });
    } catch {
      bad.push({ key: r.key, runId: null, message: `Record is not valid JSON (key ${r.key})` });
    }
  }
  const windows = windowsToRead(entries);
  const before: { key: string; value: unknown }[] = [];
  if (windows.length) {
    const have = new Set(entries.map((e) => e.key));
    const read = await Promise.all(
      windows.map(
        (w) =>
          queryRows(
            db,
            Prisma.sql`SELECT "key", "value" FROM "StateEntry" WHERE ${checkpointRange(threadId, runId)} AND "key" >= ${w.from} AND "key" < ${w.to}`,
          ) as Promise<{ key: string; value: string }[]>,
      ),
    );
    for (const r of read.flat()) {
      if (have.has(r.key)) continue;
      have.add(r.key);
      try {
        before.push({ key: r.key, value: parseStoredText(r.value, r.key) });
      } catch {
        // Left out: the records read from it are reported unreadable, by their keys.
      }
    }
  }
  const records = readCheckpoints([...before, ...entries]).slice(before.length);
  const ok: CheckpointRecord[] = [];
  records.forEach((r, i) => {
    if (r instanceof AgentCheckpointCorruptionError) bad.push({ key: entries[i].key, runId: null, message: r.message });
    else ok.push(r);
  });
  return { ok, bad };
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
  const { ok, bad } = await readRecords(db, threadId, runId, rows);
  if (bad.length) throw new AgentCheckpointCorruptionError(bad[0].message, bad[0].key);
  const found = new Map<number, CheckpointRecord>();
  for (const c of ok) if (seqs.includes(c.seq)) found.set(c.seq, c);
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
  if (!row) return null;
  const { ok, bad } = await readRecords(db, threadId, runId, [row]);
  if (bad.length) throw new AgentCheckpointCorruptionError(bad[0].message, bad[0].key);
  return ok[0];
}

export async function countCheckpoints(db: Db, threadId: string, runId: string): Promise<number> {
  const [r] = await queryRows(db, Prisma.sql`SELECT COUNT(*) AS "n" FROM "StateEntry" WHERE ${checkpointRange(threadId, runId)}`);
  return Number(r?.n ?? 0);
}

// ---- Webhook deliveries ----

// Every run page reads them: one statement through the driver (Prisma's engine cost a run page more than
// everything else it reads).
export async function webhookDeliveries(db: Db, runId: string) {
  const rows = await queryRows(
    db,
    Prisma.sql`SELECT "id", "event", "url", "status", "attempts", "lastStatus", "lastError", "createdAt", "deliveredAt"
      FROM "WebhookDelivery" WHERE "runId" = ${runId} ORDER BY "createdAt" DESC LIMIT 20`,
  );
  return rows.map((r) => ({
    id: r.id as string,
    event: r.event as string,
    url: r.url as string,
    status: r.status as string,
    attempts: Number(r.attempts),
    lastStatus: r.lastStatus === null || r.lastStatus === undefined ? null : Number(r.lastStatus),
    lastError: (r.lastError as string | null) ?? null,
    createdAt: dateOf(r.createdAt) as Date,
    deliveredAt: dateOf(r.deliveredAt),
  }));
}

export async function checkpointTimestamp(db: Db, threadId: string, key: string): Promise<number | null> {
  const row = await db.stateEntry.findUnique({ where: { threadId_key: { threadId, key } }, select: { timestampMs: true } });
  return row?.timestampMs != null ? Number(row.timestampMs) : null;
}

// The inbox's root runs: agent and submitter. Through the driver (Prisma's engine compiles each statement
// on every call, which cost the inbox page more than the rest of its reads).
export async function runSummaries(
  db: Db,
  ids: string[],
): Promise<{ id: string; agentName: string; submittedByEmail: string | null; forkedFromRunId: string | null }[]> {
  if (!ids.length) return [];
  return (await queryRows(
    db,
    Prisma.sql`SELECT "id", "agentName", "submittedByEmail", "forkedFromRunId" FROM "Run" WHERE "id" IN (${Prisma.join(ids)})`,
  )) as {
    id: string;
    agentName: string;
    submittedByEmail: string | null;
    forkedFromRunId: string | null;
  }[];
}
