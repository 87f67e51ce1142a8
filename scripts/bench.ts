// npm run bench — per-step cost of the runner for 10/50/200-step deterministic runs (one tool call per
// step) with no store, in memory, on SQLite and on PostgreSQL (BENCH_POSTGRES_URL or TEST_POSTGRES_URL);
// bytes stored, time to resume, and time to list the whole history. Prints a table.
import { z } from "zod";
import type { Db } from "../lib/db/client.ts";
import { scratchDatabase } from "../tests/helpers/scratch.ts";
import { benchWorkers } from "./bench-workers.ts";
import { PrismaStore } from "../lib/store/prisma-store.ts";
import {
  type Agent,
  DemoModel,
  FailpointError,
  InMemoryStore,
  type MemoryStore,
  Runner,
  defineTool,
  listCheckpoints,
  loadLatestCheckpoint,
  loadSnapshot,
} from "../lib/runner/index.ts";

class NullStore implements MemoryStore {
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

const tick = defineTool({
  name: "tick",
  description: "count",
  schema: z.object({ n: z.number().int() }),
  async execute({ n }) {
    return { n, ok: true };
  },
});
const benchAgent = (steps: number): Agent => ({
  name: "bench",
  model: "demo:bench",
  instructions: "Count.",
  tools: [tick],
  failSafe: { maxSteps: steps + 5, maxLlmCalls: steps + 5, maxToolCalls: steps + 5 },
});
const model = (steps: number) =>
  new DemoModel({
    bench: (messages) => {
      const turn = messages.filter((m) => m.role === "assistant").length + 1;
      return turn <= steps ? { text: `step ${turn}`, toolCalls: [{ id: `t${turn}`, name: "tick", args: { n: turn } }] } : { text: "done" };
    },
  });

type Row = {
  store: string;
  steps: number;
  msPerStep: number;
  bytes: number | null;
  resumeMs: number | null;
  historyMs: number | null;
  checkpoints: number | null;
};

async function measure(label: string, store: MemoryStore, steps: number, bytesOf: (runId: string) => Promise<number | null>): Promise<Row> {
  const runId = `bench-${label}-${steps}-${Date.now()}`;
  // Warm-up run so JIT and connection pools do not count.
  await new Runner(store, { demo: model(3) }).run(benchAgent(3), { userMessage: "go", runId: `${runId}-warm` });
  // Median of three runs: this machine's 2 cores are shared, single runs are noisy.
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const id = i === 0 ? runId : `${runId}-rep${i}`;
    const t0 = performance.now();
    const r = await new Runner(store, { demo: model(steps) }).run(benchAgent(steps), { userMessage: "go", runId: id });
    times.push(performance.now() - t0);
    if (r.state !== "completed") throw new Error(`bench run ${r.state}: ${r.error}`);
  }
  const elapsed = times.sort((a, b) => a - b)[1];
  if (store instanceof NullStore)
    return { store: label, steps, msPerStep: elapsed / steps, bytes: null, resumeMs: null, historyMs: null, checkpoints: null };

  // Resume cost: a run crashed at its last step, loaded back (latest checkpoint + snapshot + logs) and finished.
  const crashId = `${runId}-crash`;
  await new Runner(store, { demo: model(steps) }, { failpoint: { at: "step_started", step: steps, action: "throw" } })
    .run(benchAgent(steps), { userMessage: "go", runId: crashId })
    .catch((e) => {
      if (!(e instanceof FailpointError)) throw e;
    });
  const t1 = performance.now();
  await loadLatestCheckpoint(store, crashId, crashId);
  await loadSnapshot(store, crashId, crashId);
  const resumeMs = performance.now() - t1;
  const resumed = await new Runner(store, { demo: model(steps) }).resume(benchAgent(steps), { runId: crashId, threadId: crashId });
  if (resumed.state !== "completed") throw new Error("resume failed");

  const t2 = performance.now();
  const cps = await listCheckpoints(store, runId, runId);
  const historyMs = performance.now() - t2;
  return { store: label, steps, msPerStep: elapsed / steps, bytes: await bytesOf(runId), resumeMs, historyMs, checkpoints: cps.length };
}

const dbBytes = (db: Db) => async (runId: string) => {
  const rows = await db.stateEntry.findMany({ where: { threadId: runId }, select: { key: true, value: true } });
  return rows.reduce((n, r) => n + Buffer.byteLength(r.key) + Buffer.byteLength(r.value), 0);
};

async function main() {
  const rows: Row[] = [];
  const sizes = [10, 50, 200];
  for (const n of sizes) rows.push(await measure("none", new NullStore(), n, async () => null));
  for (const n of sizes) {
    const mem = new InMemoryStore();
    rows.push(
      await measure("memory", mem, n, async (id) =>
        (await mem.listState(id, "")).reduce((s, e) => s + e.key.length + JSON.stringify(e.value).length, 0),
      ),
    );
  }
  const sq = await scratchDatabase("sqlite", undefined, "afk_bench");
  for (const n of sizes) rows.push(await measure("sqlite", new PrismaStore(sq.db), n, dbBytes(sq.db)));
  await sq.drop();
  const pgUrl = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
  if (pgUrl) {
    const p = await scratchDatabase("postgresql", pgUrl, "afk_bench");
    for (const n of sizes) rows.push(await measure("postgresql", new PrismaStore(p.db), n, dbBytes(p.db)));
    await p.drop();
  } else console.log("(PostgreSQL skipped: set BENCH_POSTGRES_URL or TEST_POSTGRES_URL)");

  const fmt = (v: number | null, d = 2) => (v === null ? "-" : v.toFixed(d));
  console.log("\nstore       steps  ms/step   bytes stored   checkpoints  resume ms  history ms");
  for (const r of rows) {
    console.log(
      `${r.store.padEnd(11)} ${String(r.steps).padStart(5)}  ${fmt(r.msPerStep, 3).padStart(7)}   ${(r.bytes === null ? "-" : `${(r.bytes / 1024).toFixed(1)} KB`).padStart(12)}   ${String(r.checkpoints ?? "-").padStart(10)}  ${fmt(r.resumeMs).padStart(9)}  ${fmt(r.historyMs).padStart(10)}`,
    );
  }
  const s200 = rows.find((r) => r.store === "sqlite" && r.steps === 200)!;
  console.log(
    `\ntargets at 200 steps on SQLite: per-step ${s200.msPerStep.toFixed(3)} ms (≤ 2), stored ${(s200.bytes! / 1048576).toFixed(2)} MB (≤ 1.5), history ${s200.historyMs!.toFixed(1)} ms (≤ 100)`,
  );
  if (pgUrl) await benchWorkers(pgUrl);
}

process.env.LOG_LEVEL ??= "warn";
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
