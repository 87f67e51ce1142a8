// The console's reads of checkpoint records stored as snapshot deltas (lib/runner/record-codec.ts): a
// timeline page that starts inside a window, the diff's look-ups by seq and the nearest snapshot each get
// the full runtime snapshot; a damaged full snapshot is reported, with its dependents, by key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { PrismaStore } from "@/lib/db/store";
import { checkpointsBySeq, checkpointTimeline, snapshotCheckpointAtOrBefore } from "@/lib/db/read-models";
import { Runner, keys, listCheckpoints } from "@/lib/runner";
import { countingAgent, countingModel } from "../../bench/bench-agent";

describe.each(providers)("stored checkpoint records on %s", (provider) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(() => t?.drop());

  const run = async (runId: string) => {
    const store = new PrismaStore(t.db);
    const r = await new Runner(store, { demo: countingModel(12) }).run(countingAgent("bench", 12), { userMessage: "go", runId });
    expect(r.state).toBe("completed");
    return { store, full: await listCheckpoints(store, runId, runId) };
  };

  it("timeline pages, look-ups by seq and the nearest snapshot read full snapshots", async () => {
    const { full } = await run("sd1");
    const seen = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await checkpointTimeline(t.db, "sd1", "sd1", { cursor, take: 7 });
      expect(page.corrupt).toEqual([]);
      seen.push(...page.checkpoints);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(full);
    const mid = full.filter((c) => c.step === 7);
    const found = await checkpointsBySeq(t.db, "sd1", "sd1", [mid[2].seq, mid[4].seq]);
    expect(found.get(mid[2].seq)).toEqual(mid[2]);
    expect(found.get(mid[4].seq)).toEqual(mid[4]);
    const preTools = mid.find((c) => c.phase === "pre_tool_batch")!;
    const near = await snapshotCheckpointAtOrBefore(t.db, "sd1", "sd1", keys.checkpoint("sd1", 7, preTools.seq, preTools.phase));
    expect(near).toEqual(mid.find((c) => c.phase === "post_llm"));
  });

  it("a damaged full snapshot is reported by its key, the deltas built on it by theirs, the rest read", async () => {
    const { full } = await run("sd2");
    const keyframe = full.find((c) => c.step === 5 && c.phase === "step_started")!;
    const key = keys.checkpoint("sd2", 5, keyframe.seq, keyframe.phase);
    await t.db.stateEntry.update({ where: { threadId_key: { threadId: "sd2", key } }, data: { value: '"z1:AAAA"' } });
    const page = await checkpointTimeline(t.db, "sd2", "sd2", { take: 500 });
    const dependents = full.filter((c) => c.step >= 5 && c.step < 10 && c.payload.runtime_snapshot !== undefined && c.seq > keyframe.seq);
    expect(page.corrupt.map((c) => c.key).sort()).toEqual(
      [key, ...dependents.map((c) => keys.checkpoint("sd2", c.step, c.seq, c.phase))].sort(),
    );
    expect(page.checkpoints.length).toBe(full.length - 1 - dependents.length);
    expect(page.checkpoints.filter((c) => c.step >= 10)).toEqual(full.filter((c) => c.step >= 10));
  });
});
