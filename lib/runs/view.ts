// What the run page shows, rebuilt from the runner's records: the conversation from the latest runtime
// snapshot (with each subagent's own conversation under the tool call that delegated to it) and the
// approvals of the run and its subagents. Everything here is data; the page renders it as text.
import { z } from "zod";
import { type Agent, AgentCheckpointCorruptionError, type ApprovalRecord, type Message, type MemoryStore, type ToolExecution, loadSnapshot, parseApproval } from "../runner/index.ts";

export type ConversationView = {
  runId: string;
  agent: string;
  state: string;
  messages: Message[];
  toolExecutions: ToolExecution[];
  // Subagent conversations by the parent's tool call id.
  children: Record<string, ConversationView>;
};

export type ArgChange = { field: string; before: unknown; after: unknown };

export type ApprovalView = ApprovalRecord & { changes: ArgChange[]; argsSchema: Record<string, unknown> | null };

export async function conversationOf(store: MemoryStore, threadId: string, runId: string, depth = 0): Promise<ConversationView> {
  const loaded = await loadSnapshot(store, threadId, runId);
  const children: Record<string, ConversationView> = {};
  if (depth < 4) {
    for (const m of loaded.messages.items) {
      if (m.role !== "assistant") continue;
      for (const c of m.tool_calls.filter((c) => c.name.startsWith("delegate_to_"))) {
        const childId = `${runId}.${c.id}`;
        if ((await store.getState(threadId, `runtime:${childId}`)) !== undefined) children[c.id] = await conversationOf(store, threadId, childId, depth + 1);
      }
    }
  }
  return { runId, agent: loaded.snapshot.agent_name, state: loaded.snapshot.state, messages: loaded.messages.items, toolExecutions: loaded.toolExecutions.items, children };
}

export function argChanges(before: Record<string, unknown>, after: Record<string, unknown> | null): ArgChange[] {
  if (!after) return [];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).map((field) => ({ field, before: before[field], after: after[field] }));
}

// Approvals of a run and of its subagent runs (same thread), oldest first.
export async function approvalsOf(store: MemoryStore, threadId: string, runId: string, toolsOf: (agentName: string) => Agent["tools"]): Promise<ApprovalView[]> {
  const entries = await store.listState(threadId, "approval:");
  return entries
    .map((e) => parseApproval(e.value, e.key))
    .filter((a) => a.run_id === runId || a.run_id.startsWith(`${runId}.`))
    .sort((a, b) => a.requested_at_ms - b.requested_at_ms)
    .map((a) => {
      const tool = toolsOf(a.agent_name).find((t) => t.name === a.tool_name);
      return { ...a, changes: argChanges(a.args, a.approved_args), argsSchema: tool ? (z.toJSONSchema(tool.schema) as Record<string, unknown>) : null };
    });
}

export type Corruption = { error: "AgentCheckpointCorruptionError"; message: string; key: string | null };

export function corruptionOf(e: unknown): Corruption | null {
  return e instanceof AgentCheckpointCorruptionError ? { error: "AgentCheckpointCorruptionError", message: e.message, key: e.key ?? null } : null;
}

// The approvals of a run (and its subagents) still waiting for a decision.
export async function pendingApprovalsOf(store: MemoryStore, threadId: string, runId: string): Promise<ApprovalView[]> {
  return (await approvalsOf(store, threadId, runId, () => [])).filter((a) => a.status === "pending");
}
