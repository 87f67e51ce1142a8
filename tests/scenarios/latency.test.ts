// A model that takes 600 ms per call, as real models take seconds: a run spends most of its life `running`
// and `resuming`, and every answer the console gives in those states must be a valid response shape
// (lib/dto.ts) that serializes as JSON, with no lease internals. Follows one run from start through
// running, paused, resumed (running again) to completed, reading the run page's data every 100 ms.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { HttpError } from "@/lib/auth/errors";
import { testContext } from "../helpers/context";
import type { AppContext } from "@/lib/context";
import { getRunRow } from "@/lib/db/runs";
import { decide } from "@/lib/services/decide";
import { listInbox } from "@/lib/services/inbox";
import { getRunView, listRuns } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { timelinePage } from "@/lib/services/timeline";
import { inboxDto, runDto, runListDto } from "@/lib/dto";
import { rev, sub } from "../helpers/actors";

describe.each(providers)("a slow model on %s", (provider) => {
  let t: TestDb;
  let ctx: AppContext;
  beforeAll(async () => {
    t = await freshDatabase(provider);
    ctx = testContext(t.db, { demoLatencyMs: 600 });
  });
  afterAll(async () => {
    await ctx?.worker.idle();
    await t?.drop();
  });

  it("every read of a running, paused and resuming run answers a valid shape; no 5xx", async () => {
    const states: string[] = [];
    const failures: string[] = [];
    let stop = false;
    let runId = "";
    // What the run page, the runs list and the inbox ask for while the run lives.
    const poller = (async () => {
      while (!stop) {
        if (runId) {
          for (const [name, read] of [
            ["run", () => getRunView(ctx, rev, { runId })],
            ["runs", () => listRuns({ db: t.db }, rev, { query: {} })],
            ["inbox", () => listInbox({ db: t.db }, rev, { query: {} })],
            ["timeline", () => timelinePage({ db: t.db }, rev, { runId, query: {} })],
          ] as const) {
            try {
              const v = await read();
              const json = JSON.parse(JSON.stringify(v)); // what a route would send
              if (name === "run") {
                runDto.parse(json.run);
                expect(json.run).not.toHaveProperty("leaseUntilMs");
                expect(json.run).not.toHaveProperty("leaseOwner");
                if (states.at(-1) !== json.run.state) states.push(json.run.state);
              }
              if (name === "runs") runListDto.parse(json);
              if (name === "inbox") inboxDto.parse(json);
            } catch (e) {
              failures.push(`${name}: ${e instanceof HttpError ? e.status : 500} ${String(e).slice(0, 200)}`);
            }
          }
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    runId = (
      await startRun(ctx, sub, { body: { agent: "refund-desk", input: { order_id: "ORD-9001", amount_cents: 9000, reason: "late" } } })
    ).id;
    await expect.poll(() => states.at(-1), { timeout: 15_000, interval: 100 }).toBe("paused");
    await decide(ctx, rev, { approvalId: `${runId}:2:call_refund`, body: { decision: "approve" } });
    // The last decision resumes the run by itself.
    expect((await decide(ctx, rev, { approvalId: `${runId}:2:call_notify`, body: { decision: "approve" } })).resumed).toBe(true);
    await expect.poll(() => states.at(-1), { timeout: 15_000, interval: 100 }).toBe("completed");
    stop = true;
    await poller;
    expect(failures).toEqual([]);
    // The in-between states were seen, not only the interesting ones.
    expect(states).toEqual(["running", "paused", "running", "completed"]);
  }, 60_000);
});

// PostgreSQL only: a lock that holds the store's writes while the Run table stays writable needs table locks.
describe.each(providers.filter((p) => p === "postgresql"))("write-behind lag on %s", (provider) => {
  let t: TestDb;
  let ctx: AppContext;
  beforeAll(async () => {
    t = await freshDatabase(provider);
    ctx = testContext(t.db, { demoLatencyMs: 600 });
  });
  afterAll(async () => {
    await ctx?.worker.idle();
    await t?.drop();
  });

  // The run row's progress is written from the runner's events, ahead of its write-behind queue: a reader
  // can see `running` at step 1 before any checkpoint is in the store. That is a run at work, not a lost
  // record (CI once marked such a run corrupt and refused its approvals).
  it("a running run whose first checkpoints are not stored yet reads as running, not corrupt", async () => {
    const blocker = new pg.Client({ connectionString: t.url });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query(`LOCK TABLE "StateEntry" IN EXCLUSIVE MODE`); // writes wait, reads go on
      const { id } = await startRun(ctx, sub, {
        body: {
          agent: "refund-desk",
          input: { order_id: "ORD-9002", amount_cents: 100, reason: "late" },
        },
      });
      await expect.poll(async () => (await getRunRow(t.db, id))?.step ?? 0, { timeout: 10_000, interval: 20 }).toBeGreaterThan(0);
      const view = await getRunView(ctx, rev, { runId: id });
      expect(view.corruption).toBeNull();
      expect(view.run.state).toBe("running");
      expect((await getRunRow(t.db, id))?.corruptKey).toBeNull();
      await blocker.query("COMMIT");
      await expect.poll(async () => (await getRunRow(t.db, id))?.state, { timeout: 15_000, interval: 100 }).toBe("paused");
      expect((await getRunView(ctx, rev, { runId: id })).corruption).toBeNull();
    } finally {
      await blocker.end();
    }
  }, 60_000);
});
