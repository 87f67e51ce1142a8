// The console's reads of checkpoint records stored as deltas in windows (lib/runner/record-codec.ts): a
// timeline page that starts inside a window, the diff's look-ups by seq and its nearest snapshot each read
// exactly the records listCheckpoints reads; a damaged window's first record is reported, with the records
// read from it, by their keys, and the other windows read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { PrismaStore } from "@/lib/db/store";
import { checkpointsBySeq, checkpointTimeline, snapshotCheckpointAtOrBefore } from "@/lib/db/read-models";
import { Runner, WINDOW_STEPS, keys, listCheckpoints } from "@/lib/runner";
import { countingAgent, countingModel } from "../../bench/bench-agent";

const STEPS = WINDOW_STEPS + 6;

describe.each(providers)("stored checkpoint records on %s", (provider) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(() => t?.drop());

  const run = async (runId: string) => {
    const store = new PrismaStore(t.db);
    const r = await new Runner(store, { demo: countingModel(STEPS) }).run(countingAgent("bench", STEPS), { userMessage: "go", runId });
    expect(r.state).toBe("completed");
    return { store, full: await listCheckpoints(store, runId, runId) };
  };
  const keyOf = (c: { run_id: string; step: number; seq: number; phase: string }) => keys.checkpoint(c.run_id, c.step, c.seq, c.phase);

  it("timeline pages, look-ups by seq and the nearest snapshot read what listCheckpoints reads", async () => {
    const { full } = await run("sd1");
    for (const take of [7, 23]) {
      const seen = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await checkpointTimeline(t.db, "sd1", "sd1", { cursor, take });
        expect(page.corrupt).toEqual([]);
        seen.push(...page.checkpoints);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      expect(seen).toEqual(full);
    }
    const mid = full.filter((c) => c.step === WINDOW_STEPS + 3);
    const late = full.filter((c) => c.step === 7);
    const found = await checkpointsBySeq(t.db, "sd1", "sd1", [late[2].seq, mid[4].seq]);
    expect(found.get(late[2].seq)).toEqual(late[2]);
    expect(found.get(mid[4].seq)).toEqual(mid[4]);
    const preTools = mid.find((c) => c.phase === "pre_tool_batch")!;
    const near = await snapshotCheckpointAtOrBefore(t.db, "sd1", "sd1", keyOf(preTools));
    expect(near).toEqual(mid.find((c) => c.phase === "post_llm"));
  });

  it("a damaged first record of a window is reported by its key, the records read from it by theirs, the rest read", async () => {
    const { full } = await run("sd2");
    const first = full.find((c) => c.step === WINDOW_STEPS && c.phase === "step_started")!;
    const key = keyOf(first);
    await t.db.stateEntry.update({ where: { threadId_key: { threadId: "sd2", key } }, data: { value: '{"v":2,"k":1,"t":"x"}' } });
    const page = await checkpointTimeline(t.db, "sd2", "sd2", { take: 500 });
    // The window's records after it, up to the terminal record (stored whole).
    const dependents = full.filter((c) => c.step >= WINDOW_STEPS && c.seq > first.seq && c.phase !== "run_terminal");
    expect(page.corrupt.map((c) => c.key)).toEqual([key, ...dependents.map(keyOf)]);
    expect(page.corrupt[1].message).toMatch(/record before it/);
    expect(page.checkpoints).toEqual(full.filter((c) => c.step < WINDOW_STEPS || c.phase === "run_terminal"));
  });
});
