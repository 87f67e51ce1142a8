// Property: whatever happens to one stored record (a field dropped, a wrong type, an unknown phase or
// schema version, truncated JSON, a huge value, arbitrary JSON), resume either raises
// AgentCheckpointCorruptionError — having written nothing and called no model — or succeeds because the
// record is still valid. It never raises anything else.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AgentCheckpointCorruptionError,
  AgentEffectIntegrityError,
  AgentMismatchError,
  type MemoryStore,
  type ModelAdapter,
  Runner,
  approvalIdOf,
  decideApproval,
} from "@/lib/runner";
import { putRaw } from "../helpers/raw-store";
import { makeWorld } from "./fixtures";

type Scenario = "paused" | "pending_response" | "completed" | "mid_step";

async function build(scenario: Scenario) {
  const w = makeWorld({
    config:
      scenario === "pending_response"
        ? { failpoint: { at: "post_llm", step: 2, action: "throw" } }
        : scenario === "mid_step"
          ? { failpoint: { at: "pre_tool_batch", step: 1, action: "throw" } }
          : {},
  });
  const threadId = `t-${scenario}`;
  const runId = `r-${scenario}`;
  await w.runner.run(w.agent, { userMessage: "go", threadId, runId }).catch(() => undefined);
  if (scenario === "completed") {
    await decideApproval(w.store, threadId, await approvalIdOf(w.store, threadId, runId, "c2"), w.agent.tools[1], {
      by: "rev",
      decision: "approve",
    });
    await w.restarted().resume(w.agent, { runId, threadId });
  }
  return { w, threadId, runId };
}

type Mutation =
  | { kind: "drop"; pick: number }
  | { kind: "wrongType"; pick: number; value: unknown }
  | { kind: "phase"; value: string }
  | { kind: "version"; value: unknown }
  | { kind: "truncate"; at: number }
  | { kind: "huge"; pick: number }
  | { kind: "replace"; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("drop" as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant("wrongType" as const),
    pick: fc.nat(),
    value: fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer()), fc.object()),
  }),
  fc.record({ kind: fc.constant("phase" as const), value: fc.string() }),
  fc.record({ kind: fc.constant("version" as const), value: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant("v2")) }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("huge" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("replace" as const), value: fc.jsonValue() }),
);

// Paths to every field of a JSON value, depth-first.
function paths(v: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (v === null || typeof v !== "object") return [];
  const out: (string | number)[][] = [];
  for (const [k, x] of Object.entries(v)) {
    const p = [...prefix, Array.isArray(v) ? Number(k) : k];
    out.push(p, ...paths(x, p));
  }
  return out;
}

function setAt(root: unknown, path: (string | number)[], f: (parent: Record<string | number, unknown>, key: string | number) => void) {
  let cur = root as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  f(cur, path[path.length - 1]);
}

// The stored text after the mutation, or null when the mutation does not apply to this value.
function mutate(text: string, m: Mutation): string | null {
  const v = JSON.parse(text);
  const ps = paths(v);
  switch (m.kind) {
    case "truncate":
      return text.slice(0, m.at % Math.max(1, text.length));
    case "replace":
      return JSON.stringify(m.value);
    case "phase":
      if (typeof v?.phase !== "string") return null;
      return JSON.stringify({ ...v, phase: m.value });
    case "version":
      if (v === null || typeof v !== "object" || !("schema_version" in v)) return null;
      return JSON.stringify({ ...v, schema_version: m.value });
    default: {
      if (!ps.length) return null;
      const p = ps[m.pick % ps.length];
      setAt(v, p, (parent, key) => {
        if (m.kind === "drop") {
          if (Array.isArray(parent)) parent.splice(Number(key), 1);
          else delete parent[key];
        } else if (m.kind === "wrongType") parent[key] = m.value;
        else parent[key] = "x".repeat(2_000_000);
      });
      return JSON.stringify(v);
    }
  }
}

// Counts writes and model calls after the mutation.
function counting(store: MemoryStore) {
  const counts = { writes: 0 };
  const wrapped: MemoryStore = {
    getState: (t, k) => store.getState(t, k),
    listState: (t, p) => store.listState(t, p),
    putState: async (t, k, v) => {
      counts.writes++;
      await store.putState(t, k, v);
    },
    putStates: async (t, es) => {
      counts.writes += es.length;
      await store.putStates!(t, es);
    },
    deleteState: async (t, k) => {
      counts.writes++;
      await store.deleteState(t, k);
    },
    compareAndPut: async (t, k, e, v) => {
      counts.writes++;
      return store.compareAndPut!(t, k, e, v);
    },
  };
  return { wrapped, counts };
}

const bases = new Map<Scenario, { keys: string[]; texts: Map<string, string> }>();

describe("corrupt records on resume", () => {
  const stats = { runs: 0, corruption: 0, integrity: 0, mismatch: 0, succeeded: 0 };

  it.each(["paused", "pending_response", "completed", "mid_step"] as Scenario[])("%s run: any single mutated record", async (scenario) => {
    // The stored text of every key of the base run, to mutate one of them per case.
    const { w: probe, threadId } = await build(scenario);
    const entries = await probe.store.listState(threadId, "");
    bases.set(scenario, { keys: entries.map((e) => e.key), texts: new Map(entries.map((e) => [e.key, JSON.stringify(e.value)])) });
    const base = bases.get(scenario)!;

    await fc.assert(
      fc.asyncProperty(fc.nat(), mutation, async (pick, m) => {
        const key = base.keys[pick % base.keys.length];
        const text = mutate(base.texts.get(key)!, m);
        fc.pre(text !== null && text !== base.texts.get(key));
        const { w, runId } = await build(scenario);
        await putRaw(w.store, threadId, key, text!);
        let calls = 0;
        const demo = w.model as ModelAdapter;
        const model: ModelAdapter = {
          ...demo,
          generate: (...a: Parameters<ModelAdapter["generate"]>) => {
            calls++;
            return demo.generate(...a);
          },
        } as ModelAdapter;
        const { wrapped, counts } = counting(w.store);
        const runner = new Runner(wrapped, { demo: model }, { failpoint: undefined });
        stats.runs++;
        try {
          const r = await runner.resume(w.agent, { runId, threadId });
          // "Succeeded" means the run went on; a run that failed on an unreadable record is not a success.
          expect(r.error ?? "", `resume after mutating ${key} with ${m.kind}`).not.toMatch(
            /Corruption|Integrity|Mismatch|TypeError|SyntaxError|RangeError/,
          );
          stats.succeeded++;
        } catch (e) {
          if (e instanceof AgentCheckpointCorruptionError) stats.corruption++;
          else if (e instanceof AgentEffectIntegrityError && key.startsWith("effect:")) stats.integrity++;
          else if (e instanceof AgentMismatchError && (key.includes(":run_started") || key.startsWith("runtime:"))) stats.mismatch++;
          else throw new Error(`mutating ${key} with ${m.kind} raised ${(e as Error)?.name}: ${(e as Error)?.message}`);
          expect(counts.writes, `writes after an error on ${key}`).toBe(0);
          expect(calls, `model calls after an error on ${key}`).toBe(0);
        }
      }),
      { numRuns: 150, seed: 20261202 + scenario.length },
    );
  });

  it("reports what it generated", () => {
    console.log(
      `corrupt records: ${stats.runs} resumes of mutated records: ${stats.corruption} AgentCheckpointCorruptionError, ${stats.integrity} effect integrity, ${stats.mismatch} agent mismatch, ${stats.succeeded} still valid and resumed`,
    );
    expect(stats.runs).toBeGreaterThan(400);
    expect(stats.corruption).toBeGreaterThan(stats.runs / 3);
  });
});
