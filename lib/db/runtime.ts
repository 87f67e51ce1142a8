// The runtime protocol's rows: external runs (Run rows registered by a runtime token, under the runtime's
// own id), what the runtime reported of them (RuntimeEvent) and the claims of their decisions
// (InterruptClaim, whose primary key makes each claim happen once).
import { isUniqueViolation } from "./errors.ts";
import { Prisma } from "../generated/sqlite/client.ts";
import type { RunState } from "../runner/index.ts";
import { type AuditInput, appendAudit } from "./audit.ts";
import { type Db, queryRows, transaction } from "./client.ts";
import { dateOf } from "./driver.ts";
import { type Run, runFromRow } from "./runs.ts";
import { moveTo, targetOf } from "./run-moves.ts";

export type ExternalRunInput = {
  id: string;
  tokenId: string;
  externalId: string;
  agentName: string;
  framework: string;
  labels: Record<string, string>;
  metadata: Record<string, unknown>;
  input: unknown;
  submittedById: string | null;
  submittedByEmail: string | null;
};

export async function externalRunByExternalId(db: Db, tokenId: string, externalId: string): Promise<Run | null> {
  const [r] = await queryRows(db, Prisma.sql`SELECT * FROM "Run" WHERE "runtimeTokenId" = ${tokenId} AND "externalId" = ${externalId}`);
  return r ? runFromRow(r) : null;
}

/** Creates an external run (state running); a registration that raced another fails with P2002 (isUniqueViolation). */
export const createExternalRun = async (db: Db, r: ExternalRunInput): Promise<Run> =>
  // Created in the state the table gives a registration.
  (await db.run.create({
    data: {
      id: r.id,
      threadId: r.id,
      agentName: r.agentName,
      state: targetOf("register"),
      input: JSON.stringify(r.input ?? null),
      submittedById: r.submittedById,
      submittedByEmail: r.submittedByEmail,
      runtimeTokenId: r.tokenId,
      externalId: r.externalId,
      framework: r.framework,
      labels: JSON.stringify(r.labels),
      metadata: JSON.stringify(r.metadata),
    },
  })) as Run;

/** Labels and metadata are the latest the runtime sent. */
export const updateExternalRunLabels = (db: Db, id: string, labels: Record<string, string>, metadata: Record<string, unknown>) =>
  db.run.update({ where: { id }, data: { labels: JSON.stringify(labels), metadata: JSON.stringify(metadata) } });

/** The state, phase and step a runtime reported (terminal states stamp finishedAt). */
export const setExternalRunState = (
  db: Db,
  id: string,
  p: { state?: RunState; phase?: string | null; step?: number; error?: string | null; finishedAt?: Date | null },
) => db.run.update({ where: { id }, data: { ...p, state: p.state && moveTo("report", p.state) } });

export type RuntimeEventRow = { seq: number; type: string; clientId: string | null; data: string; at: Date };

/**
 * Appends reported events in order (call under the run's lock: seq is the next after the last). An event
 * whose clientId the run already has is skipped (a retried report lands once); returns how many were new.
 */
export async function appendRuntimeEvents(tx: Db, runId: string, events: { type: string; clientId: string | null; data: unknown }[]) {
  const [last] = await queryRows(tx, Prisma.sql`SELECT MAX("seq") AS "seq" FROM "RuntimeEvent" WHERE "runId" = ${runId}`);
  let seq = Number(last?.seq ?? 0);
  const ids = events.map((e) => e.clientId).filter((c): c is string => c !== null);
  const seen = new Set(
    ids.length
      ? (await tx.runtimeEvent.findMany({ where: { runId, clientId: { in: ids } }, select: { clientId: true } })).map((r) => r.clientId)
      : [],
  );
  const fresh = events.filter((e) => e.clientId === null || !seen.has(e.clientId));
  for (const e of fresh) {
    if (e.clientId) seen.add(e.clientId);
    await tx.runtimeEvent.create({ data: { runId, seq: ++seq, type: e.type, clientId: e.clientId, data: JSON.stringify(e.data) } });
  }
  return fresh.length;
}

/** A run's reported events in order (the run page's conversation and timeline), at most `take`. */
export async function runtimeEvents(db: Db, runId: string, take = 5000): Promise<RuntimeEventRow[]> {
  const rows = await queryRows(
    db,
    Prisma.sql`SELECT "seq", "type", "clientId", "data", "at" FROM "RuntimeEvent" WHERE "runId" = ${runId} ORDER BY "seq" ASC LIMIT ${take}`,
  );
  return rows.map((r) => ({
    seq: Number(r.seq),
    type: r.type as string,
    clientId: (r.clientId as string | null) ?? null,
    data: r.data as string,
    at: dateOf(r.at) as Date,
  }));
}

export type ClaimRow = { claimant: string; claimedAt: Date; leaseUntil: Date | null };

export type ClaimOutcome =
  | { claimed: true; row: ClaimRow; took: "new" | "again" | "over"; from?: string }
  | { claimed: false; row: ClaimRow };

/**
 * Claims a decision for a claimant, with its audit entry in one transaction when the claim changes hands.
 * The first claimant wins (the primary key refuses a second row); the same claimant claims again (its
 * lease renewed); another claimant takes it over only when `mayPass` says the holder's lease ran out with
 * the call's result never reported, and only if the row is still the one it read (a compare-and-set, so two
 * takers never both win).
 */
export async function claimInterrupt(
  db: Db,
  c: { approvalId: string; runId: string; tokenId: string; claimant: string; leaseUntil: Date },
  audit: (took: "new" | "over", from?: string) => AuditInput,
  mayPass: (row: ClaimRow) => Promise<boolean>,
): Promise<ClaimOutcome> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const held = await claimOf(db, c.approvalId);
    if (!held) {
      try {
        await transaction(db, async (tx) => {
          await tx.interruptClaim.create({ data: c });
          await appendAudit(tx, audit("new"));
        });
        return { claimed: true, took: "new", row: { claimant: c.claimant, claimedAt: new Date(), leaseUntil: c.leaseUntil } };
      } catch (e) {
        if (isUniqueViolation(e)) continue;
        throw e;
      }
    }
    if (held.claimant === c.claimant) {
      // The holder reads it again (a process that died after claiming): its lease starts again.
      const renewed = await db.interruptClaim.updateMany({
        where: { approvalId: c.approvalId, claimant: c.claimant },
        data: { leaseUntil: c.leaseUntil },
      });
      if (renewed.count === 1) return { claimed: true, took: "again", row: { ...held, leaseUntil: c.leaseUntil } };
      continue;
    }
    if (!(await mayPass(held))) return { claimed: false, row: held };
    const moved = await transaction(db, async (tx) => {
      const r = await tx.interruptClaim.updateMany({
        where: { approvalId: c.approvalId, claimant: held.claimant, leaseUntil: held.leaseUntil },
        data: { claimant: c.claimant, leaseUntil: c.leaseUntil, claimedAt: new Date(), tokenId: c.tokenId },
      });
      if (r.count === 1) await appendAudit(tx, audit("over", held.claimant));
      return r.count === 1;
    });
    if (moved)
      return {
        claimed: true,
        took: "over",
        from: held.claimant,
        row: { claimant: c.claimant, claimedAt: new Date(), leaseUntil: c.leaseUntil },
      };
  }
  const row = await claimOf(db, c.approvalId);
  if (row) return { claimed: false, row };
  throw new Error("The claim changed concurrently; try again");
}

export const claimOf = (db: Db, approvalId: string): Promise<ClaimRow | null> =>
  db.interruptClaim.findUnique({ where: { approvalId }, select: { claimant: true, claimedAt: true, leaseUntil: true } });

/** Each claimed approval of a run: when it was claimed, by whom, until when. */
export async function claimsOf(db: Db, runId: string): Promise<Map<string, ClaimRow>> {
  const rows = await db.interruptClaim.findMany({
    where: { runId },
    select: { approvalId: true, claimedAt: true, claimant: true, leaseUntil: true },
  });
  return new Map(rows.map((r) => [r.approvalId, { claimedAt: r.claimedAt, claimant: r.claimant, leaseUntil: r.leaseUntil }]));
}

/**
 * The agents and frameworks external runtimes registered runs of (for the inbox's and runs list's filters).
 * A range on the (runtimeTokenId, externalId) index, sorted here: with `IS NOT NULL` and `ORDER BY` SQLite
 * walked the agentName index over every run (30 ms a page at 100,000 runs, on every inbox and runs page).
 */
export async function externalAgents(db: Db): Promise<{ agent: string; framework: string }[]> {
  const rows = (await queryRows(
    db,
    Prisma.sql`SELECT DISTINCT "agentName", "framework" FROM "Run" WHERE "runtimeTokenId" >= '' LIMIT 500`,
  )) as { agentName: string; framework: string | null }[];
  return rows
    .map((r) => ({ agent: r.agentName, framework: r.framework ?? "" }))
    .sort((a, b) => (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0));
}
