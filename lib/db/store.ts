// The runner's MemoryStore on Prisma (SQLite or PostgreSQL). Values are JSON text; the key is projected
// into indexed columns (kind, run, step, phase, status, time) so timelines and inboxes are one query.
import "server-only";
import { Prisma } from "../generated/sqlite/client.ts";
import { type Db, driverOf, providerOf } from "./client.ts";
import { LeaseLostError, type MemoryStore, type StateEntry, parseKey, parseStoredText } from "../runner/index.ts";

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
    case "approval":
      return {
        ...base,
        step: typeof v.step === "number" ? v.step : null,
        status: typeof v.status === "string" ? v.status : null,
        timestampMs: ts(v.requested_at_ms),
      };
    default:
      return base;
  }
}

// One execution's claim on a run: the root run's id and the lease epoch it claimed.
export type Fence = { runId: string; epoch: number };

export class PrismaStore implements MemoryStore {
  constructor(
    private readonly db: Db,
    // With a fence, every write is conditional on the claim still being current (see assertFence).
    private readonly fence: Fence | null = null,
  ) {}

  // This store as seen by the execution that claimed `fence`.
  fenced(fence: Fence): PrismaStore {
    return new PrismaStore(this.db, fence);
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
    const d = driverOf(this.db);
    const row = d
      ? ((await d.all(Prisma.sql`SELECT "leaseEpoch" FROM "Run" WHERE "id" = ${this.fence.runId}`))[0] as
          | { leaseEpoch: number }
          | undefined)
      : await this.db.run.findUnique({ where: { id: this.fence.runId }, select: { leaseEpoch: true } });
    if (!row || row.leaseEpoch !== this.fence.epoch) {
      throw new LeaseLostError(`run ${this.fence.runId}: claim epoch ${this.fence.epoch} is stale (now ${row?.leaseEpoch ?? "no row"})`);
    }
  }

  async getState(threadId: string, key: string) {
    const d = driverOf(this.db);
    if (d) {
      const [hit] = await d.all(Prisma.sql`SELECT "value" FROM "StateEntry" WHERE "threadId" = ${threadId} AND "key" = ${key}`);
      return hit ? parseStoredText(hit.value as string, key) : undefined;
    }
    const row = await this.db.stateEntry.findUnique({ where: { threadId_key: { threadId, key } }, select: { value: true } });
    return row ? parseStoredText(row.value, key) : undefined;
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
    const n = d ? await d.run(upsert) : await this.db.$executeRaw(upsert);
    if (this.fence && n === 0) await this.assertFence();
  }

  async listState(threadId: string, prefix: string) {
    const d = driverOf(this.db);
    if (d) {
      // Exactly "starts with": a byte-order range on SQLite (binary collation, uses the key index); on
      // PostgreSQL, whose collation may not be byte order, LIKE with the pattern characters escaped.
      const match =
        d.provider === "sqlite"
          ? Prisma.sql`"key" >= ${prefix} AND "key" < ${`${prefix}\u{10FFFF}`}`
          : Prisma.sql`"key" LIKE ${`${prefix.replace(/[\\%_]/g, "\\$&")}%`}`;
      const rows = await d.all(
        Prisma.sql`SELECT "key", "value" FROM "StateEntry" WHERE "threadId" = ${threadId} AND ${match} ORDER BY "key" ASC`,
      );
      return rows.map((r) => ({
        key: r.key as string,
        value: parseStoredText(r.value as string, r.key as string),
        text: r.value as string,
      }));
    }
    // Prisma's startsWith is a LIKE that leaves `_` and `%` unescaped (and is case-insensitive on SQLite),
    // so it can match other keys: the rows are filtered to the exact prefix here. A backslash in the
    // prefix would escape the next character and miss keys, so such a prefix reads every key after it.
    const rows = await this.db.stateEntry.findMany({
      where: { threadId, key: prefix.includes("\\") ? { gte: prefix } : { startsWith: prefix } },
      orderBy: { key: "asc" },
      select: { key: true, value: true },
    });
    return rows.filter((r) => r.key.startsWith(prefix)).map((r) => ({ key: r.key, value: parseStoredText(r.value, r.key), text: r.value }));
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
    const row = await this.db.stateEntry.findUnique({ where: { threadId_key: { threadId, key } }, select: { value: true } });
    if (!row || (parseStoredText(row.value, key) as { version?: number }).version !== expectedVersion) return false;
    // One autocommit statement: no read-then-write transaction for SQLite to deadlock on between instances.
    const n = await this.db
      .$executeRaw`UPDATE "StateEntry" SET "value" = ${text}, "status" = ${p.status}, "step" = ${p.step}, "timestampMs" = ${p.timestampMs}
      WHERE "threadId" = ${threadId} AND "key" = ${key} AND "value" = ${row.value} AND ${this.held()}`;
    if (n === 0) await this.assertFence();
    return n === 1;
  }
}
