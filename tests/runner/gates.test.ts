// The gates before a model call and before a delegation (afk-runtime.md, "Human-in-the-loop"): a rule
// pauses the run with a stored request, the decision is honoured on resume, across a crash, and binds
// whatever the policy says later. Model calls and subagent runs are counted, not inferred.
import { describe, expect, it } from "vitest";
import {
  type Agent,
  ApprovalDecisionError,
  DemoModel,
  type DemoScript,
  FailpointError,
  InMemoryStore,
  type PolicyRule,
  Runner,
  type RunnerConfig,
  approvalId,
  decideApproval,
  getApproval,
  keys,
  listApprovals,
  listCheckpoints,
  toolResults,
} from "@/lib/runner";

const T = "t1";

// Step 1 delegates to the researcher; step 2 answers with what it got back. Every model call is counted
// per agent and step.
function world(policy: PolicyRule[], config: Partial<RunnerConfig> = {}) {
  const calls: string[] = [];
  const turn = (m: { role: string }[]) => m.filter((x) => x.role === "assistant").length + 1;
  const lead: DemoScript = (m) => {
    calls.push(`lead:${turn(m)}`);
    if (turn(m) === 1)
      return { text: "asking", toolCalls: [{ id: "d1", name: "delegate_to_researcher", args: { task: "find the refund rules" } }] };
    return {
      text: `answer: ${toolResults(m)
        .map((r) => r.content)
        .join(" | ")}`,
    };
  };
  const researcher: DemoScript = (m) => {
    calls.push(`researcher:${turn(m)}`);
    return { text: `researched: ${String(m.findLast((x) => x.role === "user")?.content)}` };
  };
  const sub: Agent = { name: "researcher", model: "demo:researcher", instructions: "", tools: [] };
  const agent: Agent = { name: "lead", model: "demo:lead", instructions: "", tools: [], subagents: [sub], policy };
  const store = new InMemoryStore();
  const models = { demo: new DemoModel({ lead, researcher }) };
  const runner = new Runner(store, models, { failpoint: undefined, ...config });
  const restarted = () => new Runner(store, models, { failpoint: undefined });
  const start = (r = runner) => r.run(agent, { userMessage: "refund?", runId: "r", threadId: T });
  const resume = (r = runner) => r.resume(agent, { runId: "r", threadId: T });
  const decide = (id: string, input: Parameters<typeof decideApproval>[4]) => decideApproval(store, T, id, undefined, input);
  return { calls, agent, store, runner, restarted, start, resume, decide };
}

const costly: PolicyRule = {
  id: "second-call",
  gate: "llm",
  when: (f) => f.step >= 2,
  action: "require_approval",
  reason: "A second model call",
};
const delegations: PolicyRule = {
  id: "delegations",
  gate: "subagent",
  subagent: "research*",
  action: "require_approval",
  reason: "Delegations are reviewed",
};

describe("the gate before a model call", () => {
  it("pauses before the call with the run's facts; approved, the step calls the model once", async () => {
    const w = world([costly]);
    const paused = await w.start();
    expect(paused.state).toBe("paused");
    expect(w.calls).toEqual(["lead:1", "researcher:1"]);
    const [rec] = await listApprovals(w.store, T, "r");
    expect(rec).toMatchObject({ kind: "llm", step: 2, tool_name: "llm_call", rule_id: "second-call", status: "pending" });
    expect(rec.args).toMatchObject({ model: "demo:lead", step: 2, llm_calls: 1, message_count: 3 });
    expect(rec.id).toBe(approvalId("r", 2, "model_call"));
    // The step started and paused; its model call was not announced.
    const phases = (await listCheckpoints(w.store, T, "r")).filter((c) => c.step === 2).map((c) => c.phase);
    expect(phases).toEqual(["step_started", "paused"]);

    await w.decide(rec.id, { by: "rev", decision: "approve" });
    const done = await w.resume();
    expect(done.state).toBe("completed");
    expect(done.finalText).toBe('answer: {"result":"researched: find the refund rules"}');
    expect(w.calls).toEqual(["lead:1", "researcher:1", "lead:2"]);
  });

  it("a rejection ends the run with its reason and the model is not called", async () => {
    const w = world([costly]);
    await w.start();
    await w.decide(approvalId("r", 2, "model_call"), { by: "rev", decision: "reject", reason: "too expensive today" });
    const r = await w.resume();
    expect(r.state).toBe("failed");
    expect(r.error).toBe("AgentRunnerError: The model call of step 2 was rejected: too expensive today");
    expect(w.calls).toEqual(["lead:1", "researcher:1"]);
  });

  it("a crash after the approved call does not ask again or call the model again", async () => {
    const w = world([costly], { failpoint: { at: "post_llm", step: 2, action: "throw" } });
    await w.start();
    await w.decide(approvalId("r", 2, "model_call"), { by: "rev", decision: "approve" });
    await expect(w.resume()).rejects.toBeInstanceOf(FailpointError);
    expect(w.calls).toEqual(["lead:1", "researcher:1", "lead:2"]);
    const r = await w.resume(w.restarted());
    expect(r.state).toBe("completed");
    // The stored response of step 2 was used: one model call, one request.
    expect(w.calls).toEqual(["lead:1", "researcher:1", "lead:2"]);
    expect((await listApprovals(w.store, T, "r")).map((a) => [a.kind, a.status])).toEqual([["llm", "approved"]]);
  });

  it("a request binds after the rule is gone, and a crash before the pause was written pauses again", async () => {
    const w = world([costly], { failpoint: { at: "paused", step: 2, action: "throw" } });
    await expect(w.start()).rejects.toBeInstanceOf(FailpointError);
    // The request was stored before the crash; the restarted run finds it and waits for it.
    const again = await w.resume(w.restarted());
    expect(again.state).toBe("paused");
    expect(again.pendingApprovals).toEqual([approvalId("r", 2, "model_call")]);
    await w.decide(approvalId("r", 2, "model_call"), { by: "rev", decision: "reject", reason: "no" });
    w.agent.policy = []; // the policy changed meanwhile: the rejection still binds
    expect((await w.resume(w.restarted())).state).toBe("failed");
    expect(w.calls).toEqual(["lead:1", "researcher:1"]);
  });

  it("is approved or rejected, never answered or edited", async () => {
    const w = world([costly]);
    await w.start();
    const id = approvalId("r", 2, "model_call");
    await expect(w.decide(id, { by: "rev", decision: "respond", reason: "hi" })).rejects.toMatchObject({ field: "decision" });
    await expect(w.decide(id, { by: "rev", decision: "approve", args: { model: "cheap" } })).rejects.toBeInstanceOf(ApprovalDecisionError);
    await expect(w.decide(id, { by: "rev", decision: "approve", args: { model: "cheap" } })).rejects.toMatchObject({ field: "args" });
    expect((await getApproval(w.store, T, id))?.status).toBe("pending");
  });

  it("a deny rule fails the run before the call", async () => {
    const w = world([{ id: "no-second", gate: "llm", when: (f) => f.llm_calls >= 1, action: "deny", reason: "one call per run" }]);
    const r = await w.start();
    expect(r.state).toBe("failed");
    expect(r.error).toBe("AgentRunnerError: The model call of step 2 was denied by policy: one call per run");
    expect(w.calls).toEqual(["lead:1", "researcher:1"]);
  });
});

describe("the gate before a subagent", () => {
  it("pauses before the delegation; an edited task is what the subagent gets", async () => {
    const w = world([delegations]);
    const paused = await w.start();
    expect(paused.state).toBe("paused");
    expect(w.calls).toEqual(["lead:1"]);
    const [rec] = await listApprovals(w.store, T, "r");
    expect(rec).toMatchObject({ kind: "subagent", tool_name: "delegate_to_researcher", args: { task: "find the refund rules" } });
    // No child run exists yet.
    expect(await w.store.getState(T, keys.runtime("r.d1"))).toBeUndefined();
    await expect(w.decide(rec.id, { by: "rev", decision: "approve", args: { task: "" } })).rejects.toMatchObject({ field: "args.task" });
    await expect(w.decide(rec.id, { by: "rev", decision: "approve", args: { task: "x", extra: 1 } })).rejects.toMatchObject({
      field: "args.extra",
    });
    await w.decide(rec.id, { by: "rev", decision: "approve", args: { task: "find the EU refund rules" } });
    const r = await w.resume();
    expect(r.state).toBe("completed");
    expect(r.finalText).toBe('answer: {"result":"researched: find the EU refund rules"}');
    expect(w.calls).toEqual(["lead:1", "researcher:1", "lead:2"]);
  });

  it("rejected, the subagent never runs and the model learns why; responded, the model gets the reviewer's text", async () => {
    const rejected = world([delegations]);
    await rejected.start();
    await rejected.decide(approvalId("r", 1, "d1"), { by: "rev", decision: "reject", reason: "we know the rules" });
    const r1 = await rejected.resume();
    expect(r1.state).toBe("completed");
    expect(r1.finalText).toBe('answer: {"success":false,"error":"Approval denied: we know the rules"}');
    expect(rejected.calls).toEqual(["lead:1", "lead:2"]);

    const responded = world([delegations]);
    await responded.start();
    await responded.decide(approvalId("r", 1, "d1"), { by: "rev", decision: "respond", reason: "30 days, receipt needed" });
    const r2 = await responded.resume();
    expect(r2.finalText).toContain("A reviewer answered instead of running delegate_to_researcher: 30 days, receipt needed");
    expect(responded.calls).toEqual(["lead:1", "lead:2"]);
  });

  it("a rule for another subagent does not hold this one", async () => {
    const w = world([{ ...delegations, subagent: "deployer" }]);
    expect((await w.start()).state).toBe("completed");
    expect(w.calls).toEqual(["lead:1", "researcher:1", "lead:2"]);
  });
});

describe("routing (a rule's groups)", () => {
  it("the request carries the rule's groups; a decider in none of them is refused and nothing is recorded", async () => {
    const w = world([
      { ...delegations, groups: ["research-leads", "research-leads", "legal"] },
      { ...costly, groups: ["finance"] },
    ]);
    await w.start();
    const [rec] = await listApprovals(w.store, T, "r");
    expect([rec.kind, rec.groups]).toEqual(["subagent", ["research-leads", "legal"]]);
    const refused = await w.decide(rec.id, { by: "ops", decision: "approve", deciderGroups: ["ops"] }).catch((e) => e);
    expect(refused).toBeInstanceOf(ApprovalDecisionError);
    expect([refused.code, refused.message]).toEqual([
      "forbidden",
      "This approval is routed to research-leads, legal; you are in none of them",
    ]);
    // No groups at all is no exemption; only a decider not bound by routing (null) is.
    expect((await w.decide(rec.id, { by: "x", decision: "approve", deciderGroups: [] }).catch((e) => e)).code).toBe("forbidden");
    expect((await getApproval(w.store, T, rec.id))?.decisions).toEqual([]);
    expect((await w.decide(rec.id, { by: "lee", decision: "approve", deciderGroups: ["legal"] })).status).toBe("approved");
    // The model-call gate of step 2 is routed to finance.
    await w.resume();
    const llm = await getApproval(w.store, T, approvalId("r", 2, "model_call"));
    expect(llm?.groups).toEqual(["finance"]);
    expect((await w.decide(llm!.id, { by: "root", decision: "approve", deciderGroups: null })).status).toBe("approved");
    expect((await w.resume()).state).toBe("completed");
  });

  it("a v4 record (before routing) reads with no groups: anyone may decide it", async () => {
    const w = world([delegations]);
    await w.start();
    const [rec] = await listApprovals(w.store, T, "r");
    const { groups: _, ...v4 } = { ...rec, schema_version: "v4" };
    await w.store.putState(T, keys.approval("r", rec.step, rec.tool_call_id), v4);
    const read = await getApproval(w.store, T, rec.id);
    expect([read?.schema_version, read?.groups]).toEqual(["v6", []]);
    expect((await w.decide(rec.id, { by: "anyone", decision: "approve", deciderGroups: ["ops"] })).status).toBe("approved");
  });
});
