// A reader that follows a running run (the run page, the decide service's readability check) reads the
// runtime snapshot and its logs in separate statements while the run's writer commits steps. Whatever the
// order in which those statements see the store, the reader gets a consistent snapshot, never a corruption
// error: the console marks a run with an unreadable record as corrupt for good, so a false alarm here
// would stop a healthy run. The snapshot's read is issued a few milliseconds late, as on a busy network,
// so that the logs are read before steps the snapshot then counts; each model call takes 2 ms, so that the
// run lasts long enough, on a loaded machine too, to be read at many steps.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { PrismaStore } from "@/lib/db/store";
import { InMemoryStore, type MemoryStore, Runner, keys, loadSnapshot } from "@/lib/runner";
import { countingAgent, countingModel } from "../../bench/bench-agent";

const STEPS = 40;

// The store as a reader on a slow link sees it: every read of the runtime snapshot leaves 3 ms late.
function lateSnapshotReads<S extends MemoryStore>(store: S): S {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (prop !== "getState" || typeof v !== "function") return typeof v === "function" ? v.bind(target) : v;
      return async (threadId: string, key: string) => {
        if (key.startsWith("runtime:")) await new Promise((r) => setTimeout(r, 3));
        return v.call(target, threadId, key);
      };
    },
  });
}

async function followWhileRunning(writer: MemoryStore, reader: MemoryStore, runId: string) {
  const run = new Runner(writer, { demo: countingModel(STEPS, 2) }).run(countingAgent("follow", STEPS), { userMessage: "go", runId });
  let done = false;
  void run.finally(() => {
    done = true;
  });
  const steps = new Set<number>();
  let reads = 0;
  while (!done) {
    // Until the first snapshot is stored there is nothing to read yet.
    if ((await writer.getState(runId, keys.runtime(runId))) === undefined) {
      await new Promise((r) => setTimeout(r, 1));
      continue;
    }
    const s = await loadSnapshot(reader, runId, runId);
    expect(s.messages.items.length).toBeGreaterThan(0);
    steps.add(s.snapshot.step);
    reads++;
  }
  expect((await run).state).toBe("completed");
  return { steps, reads };
}

describe("a reader following a running run", () => {
  it("in memory: every read is consistent while the run commits steps between its statements", async () => {
    const store = new InMemoryStore();
    const { steps, reads } = await followWhileRunning(store, lateSnapshotReads(store), "mem");
    // The reads interleaved with the run: they saw it at many steps.
    expect(reads).toBeGreaterThan(5);
    expect(steps.size).toBeGreaterThan(5);
  });
});

describe.each(providers)("a reader following a running run on %s", (provider) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(() => t?.drop());

  it("every read is consistent while the run commits steps between its statements", async () => {
    const { steps, reads } = await followWhileRunning(new PrismaStore(t.db), lateSnapshotReads(new PrismaStore(t.db)), `db-${provider}`);
    expect(reads).toBeGreaterThan(3);
    expect(steps.size).toBeGreaterThan(3);
  });
});
