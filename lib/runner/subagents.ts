// A response's delegations: each one gated like a tool call (a reviewer may edit the task or answer in the
// subagent's place), then run as a child run in the same thread, whose pause pauses the parent.
import { type Agent, delegateTaskSchema } from "./agent.ts";
import type { ExecutionScope } from "./execution-scope.ts";
import { addUsage, type ToolCall } from "./messages.ts";
import { evaluatePolicy, hasGate } from "./policy.ts";
import type { SubagentExecution } from "./runtime-snapshot.ts";
import { keys } from "./store.ts";
import { type CallOutcome, gateCall, toolMessage } from "./tool-batch.ts";

/** Runs a response's delegations in order (within the depth and fan-out limits), setting each one's outcome. */
export async function runSubagentCalls(x: ExecutionScope, calls: ToolCall[], subs: Map<string, Agent>, outcomes: Map<string, CallOutcome>) {
  await x.checkpoint("pre_subagent_batch", { subagent_count: calls.length, subagents: calls.map((c) => c.name) });
  const allowed = x.init.depth < x.fs.maxSubagentDepth;
  for (const [i, c] of calls.entries()) {
    if (!allowed || i >= x.fs.maxSubagentFanout) {
      const error = allowed ? "Subagent fan-out limit reached" : "Subagent depth limit reached";
      outcomes.set(c.id, toolMessage(x, c, false, { success: false, error }));
      continue;
    }
    outcomes.set(c.id, await gatedSubagent(x, subs.get(c.name)!, c));
  }
  await x.checkpoint("post_subagent_batch", {
    subagent_count: calls.length,
    waiting: [...outcomes.values()].filter((o) => "waiting" in o).length,
  });
}

async function gatedSubagent(x: ExecutionScope, sub: Agent, c: ToolCall): Promise<CallOutcome> {
  const task = typeof c.args.task === "string" ? c.args.task : JSON.stringify(c.args);
  if (x.state.subagentExecutions.items.some((s) => s.tool_call_id === c.id)) return runSubagent(x, sub, c, task);
  const rules = x.agent.policy ?? [];
  const g = await gateCall(x, c, {
    kind: "subagent",
    args: { task },
    policy: () => (hasGate(rules, "subagent") ? evaluatePolicy(rules, sub.name, { task }, x.state.snap.context, "subagent") : null),
    about: { gate: "subagent", tool_call_id: c.id, tool_name: c.name },
  });
  if (!g.proceed) return g.outcome;
  const approved = delegateTaskSchema.safeParse(g.args);
  return runSubagent(x, sub, c, approved.success ? approved.data.task : task);
}

async function runSubagent(x: ExecutionScope, sub: Agent, c: ToolCall, task: string): Promise<CallOutcome> {
  const childId = `${x.runId}.${c.id}`;
  // A subagent that finished before the parent paused is not counted again when the batch is re-entered.
  const done = x.state.subagentExecutions.items.find((s) => s.tool_call_id === c.id);
  if (done)
    return toolMessage(
      x,
      c,
      done.success,
      done.success ? { result: done.final_text } : { success: false, error: `subagent ${done.state}` },
    );
  x.event("subagent_started", sub.name, { child_run_id: childId, tool_call_id: c.id });
  const started = Date.now();
  const snap = x.state.snap;
  const child = await x.rc.runChild(sub, {
    runId: childId,
    threadId: x.threadId,
    userMessage: task,
    context: snap.context,
    depth: x.init.depth + 1,
    agentPath: `${x.init.agentPath}/${sub.name}`,
    rootRunId: x.init.rootRunId,
  });
  if (child.state === "paused") return { waiting: child.pendingApprovals[0] ?? childId };
  const rec: SubagentExecution = {
    subagent: sub.name,
    run_id: childId,
    tool_call_id: c.id,
    state: child.state,
    final_text: child.finalText,
    success: child.state === "completed",
    latency_ms: Date.now() - started,
  };
  await x.append(x.state.subagentExecutions, keys.subagentExecution, rec);
  snap.usage = addUsage(snap.usage, {
    input_tokens: child.usage.inputTokens,
    output_tokens: child.usage.outputTokens,
    total_tokens: child.usage.totalTokens,
  });
  snap.total_cost_usd += child.totalCostUsd;
  x.event("subagent_completed", sub.name, { child_run_id: childId, state: child.state });
  const error = child.error ?? `subagent ${child.state}`;
  return toolMessage(x, c, rec.success, rec.success ? { result: child.finalText } : { success: false, error });
}
