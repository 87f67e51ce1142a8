// `BENCH_AGAINST=<dir> npm run bench` (bench.ts): the runner's rows of this checkout and of <dir> (a
// worktree of the code before a change), measured in one process, in turns: each side's runner, store,
// scratch databases and workload are imported from its own checkout, and every measurement alternates
// between the two sides repetition by repetition, so that a machine shared with other work slows both
// alike. Each figure is the median of its repetitions, in wall time and in this process's CPU time.
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { MemoryStore } from "../lib/runner/index.ts";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
type Sample = { ms: number; cpu: number };
const timed = async (f: () => Promise<unknown>): Promise<Sample> => {
  const [t0, c0] = [performance.now(), cpu()];
  await f();
  return { ms: performance.now() - t0, cpu: cpu() - c0 };
};

class NullStore {
  async getState() {
    return undefined;
  }
  async putState() {}
  async putStates() {}
  async listState() {
    return [];
  }
  async deleteState() {}
}

/** One checkout's code, and the measurements made with it. */
async function side(root: string) {
  const from = (rel: string) => import(pathToFileURL(path.join(root, rel)).href);
  const { Runner, FailpointError, listCheckpoints } = await from("lib/runner/index.ts");
  const { PrismaStore } = await from("lib/db/store.ts");
  const { scratchDatabase } = await from("tests/helpers/scratch.ts");
  const { countingAgent, countingModel } = await from("bench/bench-agent.ts");
  const agent = (steps: number) => countingAgent("bench", steps);
  let n = 0;
  // The bench's id length (30 characters): ids are in every key.
  const id = () => `bench-sqlite-200-${String(Date.now() + n++).slice(-13)}`;
  const dbs: { drop: () => Promise<void> }[] = [];
  return {
    root,
    async store(
      kind: "none" | "sqlite" | "postgresql",
      url?: string,
    ): Promise<{ store: MemoryStore; bytes: (runId: string) => Promise<number> }> {
      if (kind === "none") return { store: new NullStore() as MemoryStore, bytes: async () => 0 };
      // A scratch SQLite file is created under its checkout and named relative to the working directory:
      // its connection is opened from there.
      const cwd = process.cwd();
      process.chdir(root);
      let s: {
        db: { stateEntry: { count: () => Promise<number>; findMany: (q: object) => Promise<{ key: string; value: string }[]> } };
        drop: () => Promise<void>;
      };
      try {
        s = await scratchDatabase(kind, url, "afk_bench");
        await s.db.stateEntry.count();
      } finally {
        process.chdir(cwd);
      }
      dbs.push(s);
      const bytes = async (runId: string) => {
        const rows = await s.db.stateEntry.findMany({ where: { threadId: runId }, select: { key: true, value: true } });
        return rows.reduce((b, r) => b + Buffer.byteLength(r.key) + Buffer.byteLength(r.value), 0);
      };
      return { store: new PrismaStore(s.db), bytes };
    },
    /** A run of `steps` steps; its id. */
    async run(store: MemoryStore, steps: number): Promise<string> {
      const runId = id();
      const r = await new Runner(store, { demo: countingModel(steps) }).run(agent(steps), { userMessage: "go", runId });
      if (r.state !== "completed") throw new Error(`${root}: bench run ${r.state}: ${r.error}`);
      return runId;
    },
    history: (store: MemoryStore, runId: string) => listCheckpoints(store, runId, runId) as Promise<unknown[]>,
    /** A run crashed at its last step, to be resumed. */
    async crashed(store: MemoryStore, steps: number): Promise<string> {
      const runId = id();
      await new Runner(store, { demo: countingModel(steps) }, { failpoint: { at: "step_started", step: steps, action: "throw" } })
        .run(agent(steps), { userMessage: "go", runId })
        .catch((e: unknown) => {
          if (!(e instanceof FailpointError)) throw e;
        });
      return runId;
    },
    /** Resume to the first record the resumed execution has written durably. */
    async resume(store: MemoryStore, steps: number, runId: string): Promise<Sample> {
      let first: Sample | null = null;
      const watched: MemoryStore = Object.create(store);
      const [t0, c0] = [performance.now(), cpu()];
      watched.putStates = async (t, entries) => {
        await store.putStates!(t, entries);
        first ??= { ms: performance.now() - t0, cpu: cpu() - c0 };
      };
      const r = await new Runner(watched, { demo: countingModel(steps) }).resume(agent(steps), { runId, threadId: runId });
      if (r.state !== "completed") throw new Error(`resume ended ${r.state}`);
      return first!;
    },
    drop: () => Promise.all(dbs.map((d) => d.drop())),
  };
}

type Side = Awaited<ReturnType<typeof side>>;
export type Row = { measure: string; unit: "ms" | "MB"; this: number; against: number };

/** The runner's rows of both checkouts, interleaved repetition by repetition. */
export async function runnerAgainst(dir: string, reps: number, pgUrl?: string): Promise<Row[]> {
  const here = path.resolve(import.meta.dirname, "..");
  const sides: Side[] = [await side(here), await side(path.resolve(dir))];
  const rows: Row[] = [];
  const both = async (measure: string, unit: "ms", f: (s: Side, i: number) => Promise<Sample>, n = reps) => {
    const got: Sample[][] = [[], []];
    for (let i = 0; i < n; i++) for (const k of i % 2 ? [1, 0] : [0, 1]) got[k].push(await f(sides[k], k));
    rows.push({ measure, unit, this: median(got[0].map((s) => s.ms)), against: median(got[1].map((s) => s.ms)) });
    rows.push({ measure: `${measure}, CPU`, unit, this: median(got[0].map((s) => s.cpu)), against: median(got[1].map((s) => s.cpu)) });
  };
  const kinds: ("none" | "sqlite" | "postgresql")[] = pgUrl ? ["none", "sqlite", "postgresql"] : ["none", "sqlite"];
  for (const kind of kinds) {
    // One after the other: a SQLite store is opened from its checkout's directory.
    const stores = [await sides[0].store(kind, pgUrl), await sides[1].store(kind, pgUrl)];
    for (let k = 0; k < 2; k++) await sides[k].run(stores[k].store, 3); // JIT and connection pools
    const last: string[] = ["", ""];
    await both(`${kind}: a step of a 200-step run`, "ms", async (s, k) => {
      const t = await timed(async () => {
        last[k] = await s.run(stores[k].store, 200);
      });
      return { ms: t.ms / 200, cpu: t.cpu / 200 };
    });
    if (kind === "none") continue;
    const bytes = await Promise.all(sides.map((_, k) => stores[k].bytes(last[k])));
    rows.push({ measure: `${kind}: stored, 200 steps`, unit: "MB", this: bytes[0] / 1048576, against: bytes[1] / 1048576 });
    await both(`${kind}: full history, 200 steps`, "ms", (s, k) => timed(() => s.history(stores[k].store, last[k])), reps * 4);
    const crashed: string[][] = [[], []];
    for (let i = 0; i < reps + 2; i++) for (let k = 0; k < 2; k++) crashed[k].push(await sides[k].crashed(stores[k].store, 1000));
    // The first resume of each side pays for compiling its path: left out.
    for (let k = 0; k < 2; k++) await sides[k].resume(stores[k].store, 1000, crashed[k].pop()!);
    await both(`${kind}: resume of a 1,000-step run`, "ms", (s, k) => s.resume(stores[k].store, 1000, crashed[k].pop()!), reps + 1);
  }
  await Promise.all(sides.map((s) => s.drop()));
  return rows;
}
