// `BENCH_AGAINST=<dir> npm run bench` (bench.ts): the runner's rows of this checkout and of <dir> (a
// worktree of the code before a change), in turns. Each side is a process of its own (this file with
// `--side <checkout>`, importing that checkout's runner, store, scratch databases and workload; its own
// heap and JIT), and every measurement alternates between the two repetition by repetition, so that a
// machine shared with other work slows both alike. Each figure is the median of its repetitions, in wall
// time and in the side process's CPU time.
import { type ChildProcess, fork } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { MemoryStore } from "../lib/runner/index.ts";
import { NullStore } from "./bench-agent.ts";

type Kind = "none" | "sqlite" | "postgresql";
type Sample = { ms: number; cpu: number };
type Op =
  | { op: "open"; kind: Kind; url?: string }
  | { op: "run"; kind: Kind; steps: number }
  | { op: "bytes"; kind: Kind; runId: string }
  | { op: "history"; kind: Kind; runId: string }
  | { op: "crash"; kind: Kind; steps: number }
  | { op: "resume"; kind: Kind; steps: number; runId: string }
  | { op: "close" };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const timed = async (f: () => Promise<unknown>): Promise<Sample> => {
  const [t0, c0] = [performance.now(), cpu()];
  await f();
  return { ms: performance.now() - t0, cpu: cpu() - c0 };
};

// ---- A side: this file run with --side <checkout>, answering the parent's operations one at a time ----

async function serve(root: string) {
  const from = (rel: string) => import(pathToFileURL(path.join(root, rel)).href);
  const { Runner, FailpointError, listCheckpoints } = await from("lib/runner/index.ts");
  const { PrismaStore } = await from("lib/db/store.ts");
  const { scratchDatabase } = await from("tests/helpers/scratch.ts");
  const { countingAgent, countingModel } = await from("bench/bench-agent.ts");
  const agent = (steps: number) => countingAgent("bench", steps);
  const stores = new Map<
    Kind,
    {
      store: MemoryStore;
      db?: { stateEntry: { findMany: (q: object) => Promise<{ key: string; value: string }[]> } };
      drop?: () => Promise<void>;
    }
  >();
  let n = 0;
  // The bench's id length (30 characters): ids are in every key.
  const id = () => `bench-sqlite-200-${String(Date.now() + n++).slice(-13)}`;
  const handle = async (m: Op): Promise<unknown> => {
    switch (m.op) {
      case "open": {
        if (m.kind === "none") stores.set("none", { store: new NullStore() });
        else {
          const s = await scratchDatabase(m.kind, m.url, "afk_bench");
          stores.set(m.kind, { store: new PrismaStore(s.db), db: s.db, drop: s.drop });
        }
        return null;
      }
      case "run": {
        const runId = id();
        const t = await timed(async () => {
          const r = await new Runner(stores.get(m.kind)!.store, { demo: countingModel(m.steps) }).run(agent(m.steps), {
            userMessage: "go",
            runId,
          });
          if (r.state !== "completed") throw new Error(`${root}: bench run ${r.state}: ${r.error}`);
        });
        return { ...t, runId };
      }
      case "bytes": {
        const rows = await stores
          .get(m.kind)!
          .db!.stateEntry.findMany({ where: { threadId: m.runId }, select: { key: true, value: true } });
        return rows.reduce((b, r) => b + Buffer.byteLength(r.key) + Buffer.byteLength(r.value), 0);
      }
      case "history":
        return timed(() => listCheckpoints(stores.get(m.kind)!.store, m.runId, m.runId));
      case "crash": {
        const runId = id();
        await new Runner(
          stores.get(m.kind)!.store,
          { demo: countingModel(m.steps) },
          { failpoint: { at: "step_started", step: m.steps, action: "throw" } },
        )
          .run(agent(m.steps), { userMessage: "go", runId })
          .catch((e: unknown) => {
            if (!(e instanceof FailpointError)) throw e;
          });
        return runId;
      }
      case "resume": {
        // To the first record the resumed execution has written durably.
        const store = stores.get(m.kind)!.store;
        let first: Sample | null = null;
        const watched: MemoryStore = Object.create(store);
        const [t0, c0] = [performance.now(), cpu()];
        watched.putStates = async (t, entries) => {
          await store.putStates!(t, entries);
          first ??= { ms: performance.now() - t0, cpu: cpu() - c0 };
        };
        const r = await new Runner(watched, { demo: countingModel(m.steps) }).resume(agent(m.steps), { runId: m.runId, threadId: m.runId });
        if (r.state !== "completed") throw new Error(`resume ended ${r.state}`);
        return first;
      }
      case "close":
        for (const s of stores.values()) await s.drop?.();
        return null;
    }
  };
  process.on("message", (m: Op) => {
    handle(m).then(
      (result) => process.send!({ result }, () => m.op === "close" && process.exit(0)),
      (e: unknown) => process.send!({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
    );
  });
  process.send!({ ready: true });
}

// ---- The parent ----

export function start(root: string): Promise<(m: Op) => Promise<unknown>> {
  const child: ChildProcess = fork(import.meta.filename, ["--side", root], {
    cwd: root,
    execArgv: ["--conditions=react-server", "--import", "tsx"],
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn" },
  });
  let waiting: ((v: { result?: unknown; error?: string; ready?: boolean }) => void) | null = null;
  child.on("message", (v: { result?: unknown; error?: string; ready?: boolean }) => waiting?.(v));
  const next = () => new Promise<{ result?: unknown; error?: string; ready?: boolean }>((r) => (waiting = r));
  const ask = async (m: Op) => {
    const reply = next();
    child.send(m);
    const v = await reply;
    if (v.error) throw new Error(`${root}: ${v.error}`);
    return v.result;
  };
  return next().then(() => ask);
}

export type Row = { measure: string; unit: "ms" | "MB"; this: number; against: number };

/** The runner's rows of both checkouts, alternating between them repetition by repetition. */
export async function runnerAgainst(dir: string, reps: number, pgUrl?: string): Promise<Row[]> {
  const here = path.resolve(import.meta.dirname, "..");
  const sides = [await start(here), await start(path.resolve(dir))];
  const rows: Row[] = [];
  const both = async (measure: string, f: (ask: (m: Op) => Promise<unknown>, k: number) => Promise<Sample>, n = reps) => {
    const got: Sample[][] = [[], []];
    for (let i = 0; i < n; i++) for (const k of i % 2 ? [1, 0] : [0, 1]) got[k].push(await f(sides[k], k));
    rows.push({ measure, unit: "ms", this: median(got[0].map((s) => s.ms)), against: median(got[1].map((s) => s.ms)) });
    rows.push({
      measure: `${measure}, CPU`,
      unit: "ms",
      this: median(got[0].map((s) => s.cpu)),
      against: median(got[1].map((s) => s.cpu)),
    });
  };
  const kinds: Kind[] = pgUrl ? ["none", "sqlite", "postgresql"] : ["none", "sqlite"];
  for (const kind of kinds) {
    for (const ask of sides) await ask({ op: "open", kind, url: pgUrl });
    for (const ask of sides) await ask({ op: "run", kind, steps: 3 }); // JIT and connection pools
    const last = ["", ""];
    await both(`${kind}: a step of a 200-step run`, async (ask, k) => {
      const r = (await ask({ op: "run", kind, steps: 200 })) as Sample & { runId: string };
      last[k] = r.runId;
      return { ms: r.ms / 200, cpu: r.cpu / 200 };
    });
    if (kind === "none") continue;
    const bytes = (await Promise.all(sides.map((ask, k) => ask({ op: "bytes", kind, runId: last[k] })))) as number[];
    rows.push({ measure: `${kind}: stored, 200 steps`, unit: "MB", this: bytes[0] / 1048576, against: bytes[1] / 1048576 });
    await both(`${kind}: full history, 200 steps`, (ask, k) => ask({ op: "history", kind, runId: last[k] }) as Promise<Sample>, reps * 4);
    const crashed: string[][] = [[], []];
    for (let i = 0; i < reps + 2; i++)
      for (let k = 0; k < 2; k++) crashed[k].push((await sides[k]({ op: "crash", kind, steps: 1000 })) as string);
    // Each side's first resume pays for compiling its path: left out.
    for (let k = 0; k < 2; k++) await sides[k]({ op: "resume", kind, steps: 1000, runId: crashed[k].pop()! });
    await both(
      `${kind}: resume of a 1,000-step run`,
      (ask, k) => ask({ op: "resume", kind, steps: 1000, runId: crashed[k].pop()! }) as Promise<Sample>,
      reps + 1,
    );
  }
  for (const ask of sides) await ask({ op: "close" });
  return rows;
}

const at = process.argv.indexOf("--side");
if (at >= 0) void serve(process.argv[at + 1]);
