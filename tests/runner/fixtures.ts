// A small test agent with counted side effects, scripted by the demo model.
import { z } from "zod";
import {
  type Agent,
  DemoModel,
  type DemoScript,
  InMemoryStore,
  type Message,
  Runner,
  type RunnerConfig,
  defineTool,
  toolResults,
} from "@/lib/runner";

export function makeWorld(opts: { config?: Partial<RunnerConfig>; threshold?: number } = {}) {
  const effects: { tool: string; args: unknown; toolCallId: string }[] = [];
  const charge = defineTool({
    name: "charge",
    description: "charge a card",
    schema: z.object({ amount: z.number().int().positive(), note: z.string().optional() }),
    async execute(args, ctx) {
      effects.push({ tool: "charge", args, toolCallId: ctx.toolCallId });
      return { charged: args.amount };
    },
  });
  const lookup = defineTool({
    name: "lookup",
    description: "look something up",
    schema: z.object({ q: z.string() }),
    async execute(args, ctx) {
      effects.push({ tool: "lookup", args, toolCallId: ctx.toolCallId });
      return { answer: `info about ${args.q}` };
    },
  });
  const turn = (m: Message[]) => m.filter((x) => x.role === "assistant").length + 1;
  const script: DemoScript = (messages) => {
    const t = turn(messages);
    if (t === 1) return { text: "looking", toolCalls: [{ id: "c1", name: "lookup", args: { q: "order" } }] };
    if (t === 2)
      return {
        text: "charging",
        toolCalls: [
          { id: "c2", name: "charge", args: { amount: 7000 } },
          { id: "c3", name: "charge", args: { amount: 10, note: "fee" } },
        ],
      };
    const r = toolResults(messages).filter((x) => x.name === "charge");
    return { text: `done: ${r.map((x) => x.content).join(" | ")}`, structured: { results: r.length } };
  };
  const model = new DemoModel({ shop: script });
  const agent: Agent = {
    name: "shop",
    model: "demo:shop",
    instructions: "be careful",
    tools: [lookup, charge],
    policy: [
      {
        id: "big",
        tool: "charge",
        when: (a) => Number(a.amount) > (opts.threshold ?? 5000),
        action: "require_approval",
        reason: "big charge",
      },
    ],
  };
  const store = new InMemoryStore();
  const runner = new Runner(store, { demo: model }, { failpoint: undefined, ...opts.config });
  // A runner as a new process would build it: same store and model, no failpoint.
  const restarted = () => new Runner(store, { demo: model }, { failpoint: undefined });
  return { effects, agent, model, store, runner, restarted };
}
