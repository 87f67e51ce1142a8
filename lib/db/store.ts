// The runner's MemoryStore on Prisma (SQLite or PostgreSQL). Values are JSON text; the key is projected
// into indexed columns (kind, run, step, phase, status, time) so timelines and inboxes are one query.
import "server-only";
import { Prisma } from "../generated/sqlite/client.ts";
import { type Db, driverOf, providerOf, queryRows } from "./client.ts";
import { LeaseLostError, type MemoryStore, type StateEntry, parseKey, parseStoredText } from "../runner/index.ts";
import { timedCheckpointWrite } from "../metrics.ts";
import { PrismaApprovals } from "./approvals.ts";

type Projection = {
  kind: string;
  runId: string | null;
  step: number | null;
  phase: string | null;
  status: string | null;
  timestampMs: bigint | null;
};

export function project(key: string, value: unknown): Projection {
  const k = parseKey(key);
  const v = (value ?? {}) as Record<string, unknown>;
  const ts = (n: unknown) => (typeof n === "number" && Number.isFinite(n) ? BigInt(Math.trunc(n)) : null);
  const base: Projection = { kind: k.kind, runId: k.runId, step: null, phase: null, status: null, timestampMs: null };
  switch (k.kind) {
    case "latest":
      return {
        ...base,
        phase: typeof v.phase === "string" ? v.phase : null,
        step: typeof v.step === "number" ? v.step : null,
        timestampMs: ts(v.timestamp_ms),
      };
    case "checkpoint":
      return { ...base, step: k.step, phase: k.phase, timestampMs: ts(v.timestamp_ms) };
    case "effect":
      return { ...base, step: k.step, timestampMs: ts(v.timestamp_ms) };
    default:
      return base;
  }
}

// One execution's claim on a run: the root run's id and the lease epoch it claimed.
export type Fence = { runId: string; epoch: number };

// Requests for a human are counted where they are written: every request is created and closed (by a
// reviewer, a deadline, a cancel) through the approvals port, once. A store on a transaction client is made
// with countApprovals false and its caller counts after the commit (a rolled-back decision closed nothing).
export type StoreOptions = { countApprovals?: boolean };

export class PrismaStore implements MemoryStore {
  private readonly countApprovals: boolean;
  /** Approval requests: their own table (lib/db/approvals.ts), on this store's client and claim. */
  readonly approvals: PrismaApprovals;

  constructor(
    private readonly db: Db,
    // With a fence, every write is conditional on the claim still being current (see assertFence).
    private readonly fence: Fence | null = null,
    opts: StoreOptions = {},
  ) {
    this.countApprovals = opts.countApprovals ?? true;
    this.approvals = new PrismaApprovals(db, { held: this.held(), assertFence: () => this.assertFence(), count: this.countApprovals });
  }

  // This store as seen by the execution that claimed `fence`.
  fenced(fence: Fence): PrismaStore {
    return new PrismaStore(this.db, fence, { countApprovals: this.countApprovals });
  }

  // The condition every fenced write carries; on PostgreSQL it also share-locks the Run row, so a claim
  // that bumps the epoch waits for this write to commit (and then reads it) instead of racing it.
  private held(): Prisma.Sql {
    if (!this.fence) return Prisma.sql`TRUE`;
    const lock = providerOf(this.db) === "postgresql" ? Prisma.sql` FOR SHARE` : Prisma.empty;
    return Prisma.sql`EXISTS (SELECT 1 FROM "Run" WHERE "id" = ${this.fence.runId} AND "leaseEpoch" = ${this.fence.epoch}${lock})`;
  }

  async assertFence(): Promise<void> {
    if (!this.fence) return;
    const [row] = await queryRows(this.db, Prisma.sql`SELECT "leaseEpoch" FROM "Run" WHERE "id" = ${this.fence.runId}`);
    const epoch = row ? Number(row.leaseEpoch) : null;
    if (epoch !== this.fence.epoch) {
      throw new LeaseLostError(`run ${this.fence.runId}: claim epoch ${this.fence.epoch} is stale (now ${epoch ?? "no row"})`);
    }
  }

  // The stored text of one key (the compare-and-set compares against exactly this text).
  private async storedText(threadId: string, key: string): Promise<string | undefined> {
    const [hit] = await queryRows(this.db, Prisma.sql`SELECT "value" FROM "StateEntry" WHERE "threadId" = ${threadId} AND "key" = ${key}`);
    return hit ? (hit.value as string) : undefined;
  }

  async getState(threadId: string, key: string) {
    const text = await this.storedText(threadId, key);
    return text === undefined ? undefined : parseStoredText(text, key);
  }

  async putState(threadId: string, key: string, value: unknown) {
    await this.putStates(threadId, [{ key, value }]);
  }

  // One multi-row upsert: a write-behind batch costs one round trip on either provider. Fenced, the rows
  // are selected from a VALUES list under the claim's condition; no row written means the claim is stale.
  async putStates(threadId: string, entries: StateEntry[]) {
    if (!entries.length) return;
    const last = new Map(entries.map((e) => [e.key, e]));
    const rows = [...last.values()].map(({ key, value, text }) => {
      const p = project(key, value);
      return Prisma.sql`(${threadId}, ${key}, ${text ?? JSON.stringify(value)}, ${p.kind}, ${p.runId}, CAST(${p.step} AS INTEGER), ${p.phase}, ${p.status}, CAST(${p.timestampMs} AS BIGINT))`;
    });
    const source = this.fence
      ? Prisma.sql`SELECT * FROM (VALUES ${Prisma.join(rows)}) AS v WHERE ${this.held()}`
      : Prisma.sql`VALUES ${Prisma.join(rows)}`;
    const upsert = Prisma.sql`INSERT INTO "StateEntry" ("threadId", "key", "value", "kind", "runId", "step", "phase", "status", "timestampMs")
      ${source}
      ON CONFLICT ("threadId", "key") DO UPDATE SET "value" = excluded."value", "kind" = excluded."kind", "runId" = excluded."runId",
        "step" = excluded."step", "phase" = excluded."phase", "status" = excluded."status", "timestampMs" = excluded."timestampMs"`;
    const d = driverOf(this.db);
    const n = await timedCheckpointWrite(() => (d ? d.run(upsert) : this.db.$executeRaw(upsert)));
    if (this.fence && n === 0) await this.assertFence();
  }

  // Exactly "starts with": a range of the primary key in byte order (SQLite's binary collation; on
  // PostgreSQL the key column is COLLATE "C"), so the key index is used and no pattern character of the
  // prefix (`_`, `%`, a backslash) can match other keys.
  async listState(threadId: string, prefix: string) {
    const rows = await queryRows(
      this.db,
      Prisma.sql`SELECT "key", "value" FROM "StateEntry" WHERE "threadId" = ${threadId} AND "key" >= ${prefix} AND "key" < ${`${prefix}\u{10FFFF}`} ORDER BY "key" ASC`,
    );
    return rows.map((r) => ({ key: r.key as string, value: parseStoredText(r.value as string, r.key as string), text: r.value as string }));
  }

  // The same range, the value column alone: a resume reads a run's logs through this (their keys only count).
  async listTexts(threadId: string, prefix: string, limit?: number): Promise<string[]> {
    const q = Prisma.sql`SELECT "value" FROM "StateEntry" WHERE "threadId" = ${threadId} AND "key" >= ${prefix} AND "key" < ${`${prefix}\u{10FFFF}`} ORDER BY "key" ASC${limit === undefined ? Prisma.empty : Prisma.sql` LIMIT ${limit}`}`;
    const d = driverOf(this.db);
    if (d) return (await d.column(q)) as string[];
    return (await queryRows(this.db, q)).map((r) => r.value as string);
  }

  async deleteState(threadId: string, key: string) {
    await this.assertFence();
    await this.db.stateEntry.deleteMany({ where: { threadId, key } });
  }

  // Compare-and-set on the value's `version`: the update only applies to the exact text we read.
  async compareAndPut(threadId: string, key: string, expectedVersion: number | undefined, value: unknown) {
    const p = project(key, value);
    const text = JSON.stringify(value);
    if (expectedVersion === undefined) {
      const n = await this.db
        .$executeRaw`INSERT INTO "StateEntry" ("threadId", "key", "value", "kind", "runId", "step", "phase", "status", "timestampMs")
        SELECT ${threadId}, ${key}, ${text}, ${p.kind}, ${p.runId}, CAST(${p.step} AS INTEGER), ${p.phase}, ${p.status}, CAST(${p.timestampMs} AS BIGINT) WHERE ${this.held()}
        ON CONFLICT ("threadId", "key") DO NOTHING`;
      if (n === 0) await this.assertFence();
      return n === 1;
    }
    const stored = await this.storedText(threadId, key);
    const before = stored === undefined ? undefined : (parseStoredText(stored, key) as { version?: number });
    if (before === undefined || before.version !== expectedVersion) return false;
    // One autocommit statement: no read-then-write transaction for SQLite to deadlock on between instances.
    const n = await this.db
      .$executeRaw`UPDATE "StateEntry" SET "value" = ${text}, "status" = ${p.status}, "step" = ${p.step}, "timestampMs" = ${p.timestampMs}
      WHERE "threadId" = ${threadId} AND "key" = ${key} AND "value" = ${stored} AND ${this.held()}`;
    if (n === 0) await this.assertFence();
    return n === 1;
  }
}
