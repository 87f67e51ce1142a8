// The runner's MemoryStore on Prisma (SQLite or PostgreSQL). Values are JSON text; the key is projected
// into indexed columns (kind, run, step, phase, status, time) so timelines and inboxes are one query.
import { Prisma } from "../generated/sqlite/client.ts";
import type { Db } from "../db/client.ts";
import type { MemoryStore, StateEntry } from "../runner/store.ts";

type Projection = { kind: string; runId: string | null; step: number | null; phase: string | null; status: string | null; timestampMs: bigint | null };

export function project(key: string, value: unknown): Projection {
  const parts = key.split(":");
  const v = (value ?? {}) as Record<string, unknown>;
  const ts = (n: unknown) => (typeof n === "number" && Number.isFinite(n) ? BigInt(Math.trunc(n)) : null);
  const base: Projection = { kind: "other", runId: parts[1] ?? null, step: null, phase: null, status: null, timestampMs: null };
  switch (parts[0]) {
    case "checkpoint":
      if (parts[2] === "latest") return { ...base, kind: "latest", phase: typeof v.phase === "string" ? v.phase : null, step: typeof v.step === "number" ? v.step : null, timestampMs: ts(v.timestamp_ms) };
      return { ...base, kind: "checkpoint", step: Number(parts[2]), phase: parts[4] ?? null, timestampMs: ts(v.timestamp_ms) };
    case "effect":
      return { ...base, kind: "effect", step: Number(parts[2]), timestampMs: ts(v.timestamp_ms) };
    case "approval":
      return { ...base, kind: "approval", step: typeof v.step === "number" ? v.step : null, status: typeof v.status === "string" ? v.status : null, timestampMs: ts(v.requested_at_ms) };
    case "runtime":
    case "message":
    case "toolexec":
    case "subexec":
      return { ...base, kind: parts[0] };
    default:
      return { ...base, runId: null };
  }
}

function parse(text: string): unknown {
  return JSON.parse(text);
}

export class PrismaStore implements MemoryStore {
  constructor(private readonly db: Db) {}

  async getState(threadId: string, key: string) {
    const row = await this.db.stateEntry.findUnique({ where: { threadId_key: { threadId, key } }, select: { value: true } });
    return row ? parse(row.value) : undefined;
  }

  async putState(threadId: string, key: string, value: unknown) {
    await this.putStates(threadId, [{ key, value }]);
  }

  // One multi-row upsert: a write-behind batch costs one round trip on either provider.
  async putStates(threadId: string, entries: StateEntry[]) {
    if (!entries.length) return;
    const last = new Map(entries.map((e) => [e.key, e.value]));
    const rows = [...last].map(([key, value]) => {
      const p = project(key, value);
      return Prisma.sql`(${threadId}, ${key}, ${JSON.stringify(value)}, ${p.kind}, ${p.runId}, ${p.step}, ${p.phase}, ${p.status}, ${p.timestampMs})`;
    });
    await this.db.$executeRaw`INSERT INTO "StateEntry" ("threadId", "key", "value", "kind", "runId", "step", "phase", "status", "timestampMs")
      VALUES ${Prisma.join(rows)}
      ON CONFLICT ("threadId", "key") DO UPDATE SET "value" = excluded."value", "kind" = excluded."kind", "runId" = excluded."runId",
        "step" = excluded."step", "phase" = excluded."phase", "status" = excluded."status", "timestampMs" = excluded."timestampMs"`;
  }

  async listState(threadId: string, prefix: string) {
    const rows = await this.db.stateEntry.findMany({ where: { threadId, key: { startsWith: prefix } }, orderBy: { key: "asc" }, select: { key: true, value: true } });
    return rows.map((r) => ({ key: r.key, value: parse(r.value) }));
  }

  async deleteState(threadId: string, key: string) {
    await this.db.stateEntry.deleteMany({ where: { threadId, key } });
  }

  // Compare-and-set on the value's `version`: the update only applies to the exact text we read.
  async compareAndPut(threadId: string, key: string, expectedVersion: number | undefined, value: unknown) {
    const p = project(key, value);
    const text = JSON.stringify(value);
    if (expectedVersion === undefined) {
      const n = await this.db.$executeRaw`INSERT INTO "StateEntry" ("threadId", "key", "value", "kind", "runId", "step", "phase", "status", "timestampMs")
        VALUES (${threadId}, ${key}, ${text}, ${p.kind}, ${p.runId}, ${p.step}, ${p.phase}, ${p.status}, ${p.timestampMs}) ON CONFLICT ("threadId", "key") DO NOTHING`;
      return n === 1;
    }
    const row = await this.db.stateEntry.findUnique({ where: { threadId_key: { threadId, key } }, select: { value: true } });
    if (!row || (parse(row.value) as { version?: number }).version !== expectedVersion) return false;
    // One autocommit statement: no read-then-write transaction for SQLite to deadlock on between instances.
    const n = await this.db.$executeRaw`UPDATE "StateEntry" SET "value" = ${text}, "status" = ${p.status}, "step" = ${p.step}, "timestampMs" = ${p.timestampMs}
      WHERE "threadId" = ${threadId} AND "key" = ${key} AND "value" = ${row.value}`;
    return n === 1;
  }
}
