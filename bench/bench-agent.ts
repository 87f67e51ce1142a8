// The benchmarks' workload: an agent that counts, one model call and one tool call a step, for `steps`
// steps, then answers (the deterministic demo model; the tool does nothing a step could wait on).
import { z } from "zod";
import { type Agent, DemoModel, type MemoryStore, defineTool } from "../lib/runner/index.ts";

export const tick = defineTool({
  name: "tick",
  description: "count",
  schema: z.object({ n: z.number().int() }),
  async execute({ n }) {
    return { n, ok: true };
  },
});

/** The counting agent, named `name`, with room for `steps` steps; `extra` adds fields (an input schema). */
export const countingAgent = (name: string, steps: number, extra: Partial<Agent> = {}): Agent => ({
  name,
  model: "demo:bench",
  instructions: "Count.",
  tools: [tick],
  failSafe: { maxSteps: steps + 5, maxLlmCalls: steps + 5, maxToolCalls: steps + 5 },
  ...extra,
});

/** The demo model behind "demo:bench": a tool call a turn for `steps` turns, then "done"; each turn takes latencyMs. */
export const countingModel = (steps: number, latencyMs = 0) =>
  new DemoModel(
    {
      bench: (messages) => {
        const turn = messages.filter((m) => m.role === "assistant").length + 1;
        return turn <= steps
          ? { text: `step ${turn}`, toolCalls: [{ id: `t${turn}`, name: "tick", args: { n: turn } }] }
          : { text: "done" };
      },
    },
    latencyMs,
  );

/** The run bench-traces measures (and probe-promises counts): started from a form with no fields. */
export const tracedAgent = (steps: number) =>
  countingAgent("bench-traced", steps, { inputSchema: z.object({}), toUserMessage: () => "go" });

/** A store that keeps nothing: the runner's own cost, without storage. */
export class NullStore implements MemoryStore {
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
