// One bad row breaks only itself. Paused runs on a real database; each case corrupts one stored record of
// one run (any kind: latest, checkpoint, runtime snapshot, message, tool execution, approval, effect) in
// one of several ways, then calls every console reader and action on it and on the others:
//  - nothing answers 5xx (every failure is a typed HttpError below 500);
//  - wherever corruption is reported, it is AgentCheckpointCorruptionError naming the record's key
//    (or, for an append-only log whose digest no longer matches, the log's prefix);
//  - the other runs are untouched: readable, listed in the inbox, not marked;
//  - nothing is executed: no tool of the corrupted run runs.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { HttpError } from "@/lib/auth/errors";
import { testContext } from "../helpers/context";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { listInbox } from "@/lib/services/inbox";
import { cancelRun, forkRun, resumeRun, retryRun } from "@/lib/services/operate";
import { getRunView, listRuns } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { diffCheckpoints, timelinePage } from "@/lib/services/timeline";
import { sweep } from "@/lib/services/deadlines";
import { errorResponse } from "@/lib/http";
import { pruneCheckpoints } from "@/lib/execution/retention";
import { op, rev, sub } from "../helpers/actors";
import { approvalName } from "@/lib/runner";

const KINDS = ["latest", "checkpoint", "runtime", "message", "toolexec", "approval", "effect"] as const;
const MUTATIONS = ["truncated-json", "null", "array", "drop-field", "wrong-type", "bad-version", "tamper-content"] as const;
type Mutation = (typeof MUTATIONS)[number];

function mutate(text: string, m: Mutation, pick: number): string {
  if (m === "truncated-json") return text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  if (m === "null") return "null";
  if (m === "array") return "[1,2]";
  const v = JSON.parse(text) as Record<string, unknown>;
  const fields = Object.keys(v).sort();
  const f = fields[pick % fields.length];
  if (m === "drop-field") delete v[f];
  if (m === "wrong-type") v[f] = typeof v[f] === "string" ? 42 : "x";
  if (m === "bad-version") v[v.schema_version !== undefined ? "schema_version" : f] = 99;
  if (m === "tamper-content") v[f] = typeof v[f] === "string" ? `${v[f]}!` : typeof v[f] === "number" ? (v[f] as number) + 1 : v[f];
  return JSON.stringify(v);
}

// What a route would answer: the value, or the status of the typed error. Anything else is a 500.
async function answer<T>(p: Promise<T>): Promise<{ status: number; value?: T; error?: unknown }> {
  try {
    return { status: 200, value: await p };
  } catch (e) {
    if (e instanceof HttpError) return { status: e.status, error: e };
    return { status: 500, error: e };
  }
}

describe.each(providers)("console under one corrupt record (%s)", (provider) => {
  let t: TestDb;
  let ctx: AppContext;
  const pool: string[] = [];
  const bystanders: string[] = [];
  const cases = provider === "sqlite" ? 70 : 20;
  const report = { cases: 0, detected: 0, benign: 0, byKind: {} as Record<string, number> };

  beforeAll(async () => {
    t = await freshDatabase(provider);
    ctx = testContext(t.db);
    for (let i = 0; i < cases + 2; i++) {
      const { id } = await startRun(ctx, sub, {
        body: {
          agent: "refund-desk",
          input: { order_id: `ORD-${1000 + i}`, amount_cents: 9000, reason: "damaged" },
        },
      });
      (i < 2 ? bystanders : pool).push(id);
    }
    await ctx.worker.idle();
  }, 180_000);
  afterAll(async () => {
    await ctx?.worker.idle();
    await t?.drop();
    console.log(
      `console corruption: ${report.cases} cases (${provider}): ${report.detected} reported as AgentCheckpointCorruptionError with the key, ${report.benign} still readable; by kind ${JSON.stringify(report.byKind)}`,
    );
  });

  it("no 5xx, the key is named, other runs untouched, nothing executed", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...KINDS), fc.constantFrom(...MUTATIONS), fc.nat(1000), async (kind, mutation, pick) => {
        const victim = pool.shift();
        if (!victim) return;
        report.cases++;
        report.byKind[kind] = (report.byKind[kind] ?? 0) + 1;
        // Approvals are rows of their own table, named in errors by their key as every other record.
        const rows =
          kind === "approval"
            ? (await t.db.approval.findMany({ where: { threadId: victim }, orderBy: { id: "asc" } })).map((a) => ({
                key: approvalName(a.id),
                value: a.record,
                id: a.id,
              }))
            : (await t.db.stateEntry.findMany({ where: { threadId: victim, kind }, orderBy: { key: "asc" } })).map((e) => ({
                ...e,
                id: null,
              }));
        expect(rows.length).toBeGreaterThan(0);
        const row = rows[pick % rows.length];
        const text = mutate(row.value, mutation, pick);
        if (row.id !== null) await t.db.approval.update({ where: { id: row.id }, data: { record: text } });
        else await t.db.stateEntry.update({ where: { threadId_key: { threadId: victim, key: row.key } }, data: { value: text } });
        const refundsBefore = await t.db.refund.count();

        const named = (key: string | null | undefined) => !!key && (key === row.key || row.key.startsWith(key));
        const results = {
          view: await answer(getRunView(ctx, rev, { runId: victim })),
          timeline: await answer(timelinePage({ db: t.db }, op, { runId: victim, query: {} })),
          diff: await answer(diffCheckpoints(ctx, op, { runId: victim, query: { a: "0", b: "3" } })),
          inbox: await answer(listInbox({ db: t.db }, rev, { query: {} })),
          runs: await answer(listRuns({ db: t.db }, op, { query: {} })),
          sweep: await answer(sweep(ctx)),
          decide: await answer(
            decide(ctx, rev, { approvalId: `${victim}:2:call_refund`, body: { decision: "reject", reason: "checking" } }),
          ),
          resume: await answer(resumeRun(ctx, op, { runId: victim })),
          retry: await answer(retryRun(ctx, op, { runId: victim })),
          fork: await answer(forkRun(ctx, op, { runId: victim, body: { seq: 1 } })),
          cancel: await answer(cancelRun(ctx, op, { runId: victim })),
          retention: await answer(pruneCheckpoints(t.db, { olderThanDays: 0 })),
        };
        await ctx.worker.idle();
        for (const [name, r] of Object.entries(results)) {
          if (r.status >= 500) throw new Error(`${name} answered 500 for ${kind}/${mutation} at ${row.key}: ${String(r.error)}`);
        }
        // Where corruption was reported, it names the record.
        const marked = (await t.db.run.findUniqueOrThrow({ where: { id: victim } })).corruptKey;
        const viewKey = results.view.value?.corruption?.key;
        if (viewKey) expect(named(viewKey), `view names ${viewKey}, corrupted ${row.key}`).toBe(true);
        if (marked) expect(named(marked), `run marked ${marked}, corrupted ${row.key}`).toBe(true);
        for (const c of results.inbox.value?.corrupt ?? []) expect(c.key === row.key || c.runId !== victim).toBe(true);
        for (const r of Object.values(results)) {
          if (!r.error) continue;
          // What the route would answer for this error.
          const res = errorResponse(r.error);
          expect(res.status).toBeLessThan(500);
          const body = (await res.json()) as { error: string; key?: string | null };
          if (body.error === "AgentCheckpointCorruptionError") {
            expect(res.status).toBe(409);
            expect(named(body.key), `409 names ${body.key}, corrupted ${row.key}`).toBe(true);
          }
        }
        if (marked || viewKey) report.detected++;
        else report.benign++;
        // A run with a corrupt record is never decidable in the inbox and never executes anything.
        if (marked) expect(results.decide.status).toBe(409);
        expect(await t.db.refund.count()).toBe(refundsBefore);
        // Bystanders: readable, listed, unmarked.
        for (const b of bystanders) {
          const v = await getRunView(ctx, rev, { runId: b });
          expect(v.corruption).toBeNull();
          expect(v.approvals.filter((a) => a.status === "pending")).toHaveLength(2);
          expect(results.inbox.value?.approvals.filter((a) => a.runId === b)).toHaveLength(2);
          expect((await t.db.run.findUniqueOrThrow({ where: { id: b } })).corruptKey).toBeNull();
        }
      }),
      { numRuns: cases, seed: 20261203 },
    );
    expect(report.detected).toBeGreaterThan(cases / 3);
  }, 600_000);
});
