// What the runner writes, to the byte: every stored entry (checkpoints, runtime snapshots, log entries,
// effects, approvals), every result and every event of a set of runs that walk each path of an execution
// (gates of all three kinds decided every way, questions, replay after a crash, subagents, limits, cancel,
// degrade). Stored records outlive the code that wrote them (checkpoint-schema.md): a change of what is
// written must be a deliberate one, with its version bump, never a side effect of moving code around.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  type Agent,
  DemoModel,
  type DemoScript,
  InMemoryStore,
  type Message,
  type ModelAdapter,
  type RunEvent,
  Runner,
  type RunnerConfig,
  ASK_HUMAN_TOOL,
  askHuman,
  approvalId,
  decideApproval,
  defineTool,
  toolResults,
} from "@/lib/runner";

const NOW = 1_800_000_000_000;
const turn = (m: Message[]) => m.filter((x) => x.role === "assistant").length + 1;

type Trace = { results: unknown[]; events: RunEvent[]; store: InMemoryStore };

function harness(
  agent: Agent,
  scripts: Record<string, DemoScript>,
  config: Partial<RunnerConfig> = {},
  extra: Record<string, ModelAdapter> = {},
) {
  const t: Trace = { results: [], events: [], store: new InMemoryStore() };
  const models = { demo: new DemoModel(scripts), ...extra };
  const runner = (c: Partial<RunnerConfig> = {}) =>
    new Runner(t.store, models, { failpoint: undefined, retry: { maxRetries: 0, baseDelayMs: 0 }, ...c }, (e) => t.events.push(e));
  const record = async (p: Promise<unknown>) => {
    try {
      t.results.push(await p);
    } catch (e) {
      t.results.push({ thrown: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    }
  };
  return {
    t,
    start: (c = config, context: Record<string, unknown> = { submitted_by: "ann" }) =>
      record(runner(c).run(agent, { userMessage: "go", runId: "r", threadId: "T", context })),
    resume: (c: Partial<RunnerConfig> = {}) => record(runner(c).resume(agent, { runId: "r", threadId: "T" })),
    decide: (id: string, input: Parameters<typeof decideApproval>[4], tool?: Parameters<typeof decideApproval>[3]) =>
      record(decideApproval(t.store, "T", id, tool, { nowMs: NOW, ...input })),
    handle: (c = config) => runner(c).runHandle(agent, { userMessage: "go", runId: "r", threadId: "T" }),
  };
}

async function dump(t: Trace) {
  const entries = (await t.store.listState("T", "")).map((e) => `${e.key}\t${e.text}`);
  return { results: t.results, events: t.events, entries };
}

const lookup = defineTool({
  name: "lookup",
  description: "look something up",
  schema: z.object({ q: z.string() }),
  async execute(args) {
    return { answer: `info about ${args.q}` };
  },
});
const charge = defineTool({
  name: "charge",
  description: "charge a card",
  schema: z.object({ amount: z.number().int().positive() }),
  async execute(args) {
    return { charged: args.amount };
  },
});
const broken = defineTool({
  name: "broken",
  description: "always fails",
  schema: z.object({}),
  async execute() {
    throw new Error("the service is down");
  },
});
const wipe = defineTool({
  name: "wipe",
  description: "never allowed",
  schema: z.object({}),
  async execute() {
    return "wiped";
  },
});
const ask = askHuman();

const shopPolicy: Agent["policy"] = [
  { id: "big", tool: "charge", when: (a) => Number(a.amount) > 5000, action: "require_approval", reason: "big charge", quorum: 1 },
  { id: "no-wipe", tool: "wipe", action: "deny", reason: "never" },
];

// Step 1 calls every kind of tool at once; step 2 answers with what came back.
const shopScript: DemoScript = (m) => {
  if (turn(m) === 1)
    return {
      text: "working",
      toolCalls: [
        { id: "c1", name: "lookup", args: { q: "order" } },
        { id: "c2", name: "charge", args: { amount: 7000 } },
        { id: "c3", name: "charge", args: { amount: 9000 } },
        { id: "c4", name: "charge", args: { amount: 10 } },
        { id: "c5", name: "broken", args: {} },
        { id: "c6", name: "nope", args: {} },
        { id: "c7", name: "charge", args: { amount: "x" } },
        { id: "c8", name: "wipe", args: {} },
        { id: "c9", name: ASK_HUMAN_TOOL, args: { question: "Which card?" } },
      ],
    };
  return {
    text: `done: ${toolResults(m)
      .map((r) => r.content)
      .join(" | ")}`,
    structured: { n: toolResults(m).length },
  };
};
const shop = (failSafe: Agent["failSafe"] = {}): Agent => ({
  name: "shop",
  model: "demo:shop",
  instructions: "be careful",
  tools: [lookup, charge, broken, wipe, ask],
  policy: shopPolicy,
  failSafe: { maxParallelTools: 2, ...failSafe },
  outputSchema: z.object({ n: z.number() }),
});

// A lead that delegates twice; the researcher answers, the clerk asks for an approval of its own.
const leadScripts: Record<string, DemoScript> = {
  lead: (m) =>
    turn(m) === 1
      ? {
          text: "delegating",
          toolCalls: [
            { id: "d1", name: "delegate_to_researcher", args: { task: "find the rules" } },
            { id: "d2", name: "delegate_to_clerk", args: { task: "file it" } },
          ],
        }
      : {
          text: `answer: ${toolResults(m)
            .map((r) => r.content)
            .join(" | ")}`,
        },
  researcher: (m) => ({ text: `researched: ${String(m.findLast((x) => x.role === "user")?.content)}` }),
  clerk: (m) => (turn(m) === 1 ? { text: "filing", toolCalls: [{ id: "k1", name: "charge", args: { amount: 6000 } }] } : { text: "filed" }),
};
const lead = (policy: Agent["policy"], failSafe: Agent["failSafe"] = {}): Agent => ({
  name: "lead",
  model: "demo:lead",
  instructions: (c) => `lead for ${String(c.team ?? "nobody")}`,
  tools: [],
  policy,
  failSafe,
  subagents: [
    { name: "researcher", model: "demo:researcher", instructions: "", tools: [] },
    { name: "clerk", model: "demo:clerk", instructions: "", tools: [charge], policy: shopPolicy },
  ],
});
const llmGate: NonNullable<Agent["policy"]>[number] = {
  id: "second-call",
  gate: "llm",
  when: (f) => f.step >= 2,
  action: "require_approval",
  reason: "A second model call",
};
const subGate: NonNullable<Agent["policy"]>[number] = {
  id: "delegations",
  gate: "subagent",
  subagent: "research*",
  action: "require_approval",
  reason: "Delegations are reviewed",
};

describe("what the runner stores, to the byte", () => {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it("a batch of every kind of tool call: paused, decided every way, resumed, completed", async () => {
    const h = harness(shop(), { shop: shopScript });
    await h.start();
    await h.decide(approvalId("r", 1, "c2"), { by: "bob", decision: "approve", args: { amount: 6500 } }, charge);
    await h.decide(approvalId("r", 1, "c3"), { by: "bob", decision: "respond", reason: "use the other card" });
    await h.decide(approvalId("r", 1, "c9"), { by: "bob", decision: "respond", reason: "the blue one" }, ask);
    await h.resume();
    await expect(JSON.stringify(await dump(h.t), null, 1)).toMatchFileSnapshot("./golden/tool-batch.txt");
  });

  it("rejections: skipped, then failing the run; a question declined and one expired", async () => {
    const skip = harness(shop(), { shop: shopScript });
    await skip.start();
    await skip.decide(approvalId("r", 1, "c2"), { by: "bob", decision: "reject", reason: "too much" });
    await skip.decide(approvalId("r", 1, "c3"), { by: "bob", decision: "reject", reason: "" });
    await skip.decide(approvalId("r", 1, "c9"), { by: "bob", decision: "reject", reason: "not telling" }, ask);
    await skip.resume();
    const fail = harness(shop({ approvalDenialPolicy: "fail_run", toolFailurePolicy: "fail_run" }), { shop: shopScript });
    await fail.start();
    vi.setSystemTime(NOW + 2 * 24 * 3600 * 1000);
    await fail.resume();
    vi.setSystemTime(NOW);
    await expect(JSON.stringify({ skip: await dump(skip.t), fail: await dump(fail.t) }, null, 1)).toMatchFileSnapshot(
      "./golden/rejections.txt",
    );
  });

  it("a crash after a tool ran: the restarted run replays its effect", async () => {
    const h = harness(shop(), { shop: shopScript }, { failpoint: { at: "tool_executed", step: 1, action: "throw" } });
    await h.start();
    await h.resume();
    await h.decide(approvalId("r", 1, "c2"), { by: "bob", decision: "approve" });
    await h.decide(approvalId("r", 1, "c3"), { by: "bob", decision: "approve" });
    await h.decide(approvalId("r", 1, "c9"), { by: "bob", decision: "respond", reason: "blue" }, ask);
    await h.resume({ failpoint: { at: "post_tool_batch", step: 1, action: "throw" } });
    await h.resume();
    await expect(JSON.stringify(await dump(h.t), null, 1)).toMatchFileSnapshot("./golden/replay.txt");
  });

  it("model-call and subagent gates; a subagent that pauses pauses its parent", async () => {
    const h = harness(lead([llmGate, subGate]), leadScripts);
    await h.start(undefined, { team: "refunds", submitted_by: "ann" });
    await h.decide(approvalId("r", 1, "d1"), { by: "bob", decision: "approve", args: { task: "find the EU rules" } });
    await h.resume();
    await h.decide(approvalId("r.d2", 1, "k1"), { by: "bob", decision: "approve" });
    await h.resume();
    await h.decide(approvalId("r", 2, "model_call"), { by: "bob", decision: "approve" });
    await h.resume();
    const rejected = harness(lead([llmGate, subGate]), leadScripts);
    await rejected.start();
    await rejected.decide(approvalId("r", 1, "d1"), { by: "bob", decision: "respond", reason: "30 days" });
    await rejected.decide(approvalId("r.d2", 1, "k1"), { by: "bob", decision: "reject", reason: "no" });
    await rejected.resume();
    await rejected.resume();
    await rejected.decide(approvalId("r", 2, "model_call"), { by: "bob", decision: "reject", reason: "too costly" });
    await rejected.resume();
    const denied = harness(
      lead([
        { ...subGate, action: "deny" },
        { ...llmGate, action: "deny" },
      ]),
      leadScripts,
    );
    await denied.start();
    await denied.decide(approvalId("r.d2", 1, "k1"), { by: "bob", decision: "approve" });
    await denied.resume();
    await expect(
      JSON.stringify({ gated: await dump(h.t), rejected: await dump(rejected.t), denied: await dump(denied.t) }, null, 1),
    ).toMatchFileSnapshot("./golden/gates.txt");
  });

  it("limits, a wrong final answer, a failing model degraded or failed, a cancel", async () => {
    const fanout = harness(lead([], { maxSubagentFanout: 1 }), leadScripts);
    await fanout.start();
    const depth = harness(lead([], { maxSubagentDepth: 0 }), leadScripts);
    await depth.start();
    const steps = harness(shop({ maxSteps: 1 }), {
      shop: (m) => ({ text: "again", toolCalls: [{ id: `l${turn(m)}`, name: "lookup", args: { q: "x" } }] }),
    });
    await steps.start();
    const tools = harness(shop({ maxToolCalls: 1 }), { shop: shopScript });
    await tools.start();
    const shape = harness(shop(), { shop: () => ({ text: "no shape", structured: { n: "one" } }) });
    await shape.start();
    const down: ModelAdapter = {
      provider: "down",
      async generate() {
        throw new Error("model unavailable");
      },
    };
    const downAgent = (failSafe: Agent["failSafe"]): Agent => ({ ...shop(failSafe), model: "down:x" });
    const degraded = harness(downAgent({ llmFailurePolicy: "retry_then_degrade" }), {}, {}, { down });
    await degraded.start();
    const failed = harness(downAgent({}), {}, {}, { down });
    await failed.start();
    const cancelled = harness(shop(), { shop: shopScript });
    const handle = cancelled.handle();
    handle.cancel();
    cancelled.t.results.push(await handle.awaitResult());
    const thrown = harness(shop(), { shop: shopScript }, { failpoint: { at: "pre_llm", step: 1, action: "throw" } });
    await thrown.start();
    const traces = { fanout, depth, steps, tools, shape, degraded, failed, cancelled, thrown };
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(traces)) out[k] = await dump(v.t);
    await expect(JSON.stringify(out, null, 1)).toMatchFileSnapshot("./golden/limits.txt");
  });
});
