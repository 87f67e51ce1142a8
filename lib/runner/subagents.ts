// A response's delegations: each one gated like a tool call (a reviewer may edit the task or answer in the
// subagent's place), then run as a child run in the same thread, whose pause pauses the parent.
import { type Agent, delegateTaskSchema } from "./agent.ts";
import type { ExecutionScope } from "./execution-scope.ts";
import { addUsage, type ToolCall } from "./messages.ts";
import { evaluatePolicy, hasGate } from "./policy.ts";
import type { SubagentExecution } from "./runtime-snapshot.ts";
import { keys } from "./store.ts";
import { type ToolCallOutcome, gateCall, toolMessage } from "./tool-batch.ts";

/** Runs a response's delegations in order (within the depth and fan-out limits), setting each one's outcome. */
export async function runSubagentCalls(
  exec: ExecutionScope,
  calls: ToolCall[],
  subs: Map<string, Agent>,
  outcomes: Map<string, ToolCallOutcome>,
) {
  await exec.checkpoint("pre_subagent_batch", { subagent_count: calls.length, subagents: calls.map((c) => c.name) });
  const allowed = exec.init.depth < exec.limits.maxSubagentDepth;
  for (const [i, c] of calls.entries()) {
    if (!allowed || i >= exec.limits.maxSubagentFanout) {
      const error = allowed ? "Subagent fan-out limit reached" : "Subagent depth limit reached";
      outcomes.set(c.id, toolMessage(exec, c, false, { success: false, error }));
      continue;
    }
    outcomes.set(c.id, await gatedSubagent(exec, subs.get(c.name)!, c));
  }
  await exec.checkpoint("post_subagent_batch", {
    subagent_count: calls.length,
    waiting: [...outcomes.values()].filter((o) => o.type === "waiting").length,
  });
}

async function gatedSubagent(exec: ExecutionScope, sub: Agent, c: ToolCall): Promise<ToolCallOutcome> {
  const task = typeof c.args.task === "string" ? c.args.task : JSON.stringify(c.args);
  if (exec.state.subagentExecutions.items.some((s) => s.tool_call_id === c.id)) return runSubagent(exec, sub, c, task);
  const rules = exec.agent.policy ?? [];
  const g = await gateCall(exec, c, {
    kind: "subagent",
    args: { task },
    policy: () => (hasGate(rules, "subagent") ? evaluatePolicy(rules, sub.name, { task }, exec.state.snap.context, "subagent") : null),
    about: { gate: "subagent", tool_call_id: c.id, tool_name: c.name },
  });
  if (g.type === "settled") return g.outcome;
  const approved = delegateTaskSchema.safeParse(g.args);
  return runSubagent(exec, sub, c, approved.success ? approved.data.task : task);
}

async function runSubagent(exec: ExecutionScope, sub: Agent, c: ToolCall, task: string): Promise<ToolCallOutcome> {
  const childId = `${exec.runId}.${c.id}`;
  // A subagent that finished before the parent paused is not counted again when the batch is re-entered.
  const done = exec.state.subagentExecutions.items.find((s) => s.tool_call_id === c.id);
  if (done)
    return toolMessage(
      exec,
      c,
      done.success,
      done.success ? { result: done.final_text } : { success: false, error: `subagent ${done.state}` },
    );
  exec.event("subagent_started", sub.name, { child_run_id: childId, tool_call_id: c.id });
  const started = Date.now();
  const snap = exec.state.snap;
  const child = await exec.runner.runChild(sub, {
    runId: childId,
    threadId: exec.threadId,
    userMessage: task,
    context: snap.context,
    depth: exec.init.depth + 1,
    agentPath: `${exec.init.agentPath}/${sub.name}`,
    rootRunId: exec.init.rootRunId,
  });
  if (child.state === "paused") return { type: "waiting", approvalId: child.pendingApprovals[0] ?? childId };
  const rec: SubagentExecution = {
    subagent: sub.name,
    run_id: childId,
    tool_call_id: c.id,
    state: child.state,
    final_text: child.finalText,
    success: child.state === "completed",
    latency_ms: Date.now() - started,
  };
  await exec.append(exec.state.subagentExecutions, keys.subagentExecution, rec);
  snap.usage = addUsage(snap.usage, {
    input_tokens: child.usage.inputTokens,
    output_tokens: child.usage.outputTokens,
    total_tokens: child.usage.totalTokens,
  });
  snap.total_cost_usd += child.totalCostUsd;
  exec.event("subagent_completed", sub.name, { child_run_id: childId, state: child.state });
  const error = child.error ?? `subagent ${child.state}`;
  return toolMessage(exec, c, rec.success, rec.success ? { result: child.finalText } : { success: false, error });
}
