// What the run page shows, rebuilt from the runner's records: the conversation from the latest runtime
// snapshot (with each subagent's own conversation under the tool call that delegated to it) and the
// approvals of the run and its subagents. Everything here is data; the page renders it as text.
import {
  type Agent,
  type MemoryStore,
  childRunId,
  delegateTaskSchema,
  isDelegateTool,
  keys,
  listStored,
  loadSnapshot,
  parseApproval,
  readStored,
  reviewedArgsHash,
} from "../runner/index.ts";
import { type ApprovalView, type ArgChange, type ConversationView, toJsonSchemaDto } from "../dto.ts";

type McpOrigin = { server: string; tool: string };

export async function conversationOf(store: MemoryStore, threadId: string, runId: string, depth = 0): Promise<ConversationView> {
  const loaded = await loadSnapshot(store, threadId, runId);
  const children: Record<string, ConversationView> = {};
  if (depth < 4) {
    for (const m of loaded.messages.items) {
      if (m.role !== "assistant") continue;
      for (const c of m.tool_calls.filter((c) => isDelegateTool(c.name))) {
        const childId = childRunId(runId, c.id);
        if ((await readStored(store, threadId, keys.runtime(childId), "Runtime snapshot")) !== undefined)
          children[c.id] = await conversationOf(store, threadId, childId, depth + 1);
      }
    }
  }
  return {
    runId,
    agent: loaded.snapshot.agent_name,
    state: loaded.snapshot.state,
    messages: loaded.messages.items,
    toolExecutions: loaded.toolExecutions.items,
    children,
  };
}

export function argChanges(before: Record<string, unknown>, after: Record<string, unknown> | null): ArgChange[] {
  if (!after) return [];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((field) => ({ field, before: before[field], after: after[field] }));
}

// Approvals of a run and of its subagent runs (same thread), oldest first.
export async function approvalsOf(
  store: MemoryStore,
  threadId: string,
  runId: string,
  toolsOf: (agentName: string) => Agent["tools"],
  mcpOriginOf: (agentName: string, toolName: string) => McpOrigin | null = () => null,
): Promise<ApprovalView[]> {
  const entries = await listStored(store, threadId, keys.approvalPrefix(runId), "approval record");
  const children = await listStored(store, threadId, keys.descendantApprovalPrefix(runId), "approval record");
  return [...entries, ...children]
    .map((e) => parseApproval(e.value, e.key))
    .sort((a, b) => a.requested_at_ms - b.requested_at_ms)
    .map((a) => {
      const tool = toolsOf(a.agent_name).find((t) => t.name === a.tool_name);
      // A delegation's task is edited on its own schema; a model call's facts are not edited at all.
      const schema = a.kind === "subagent" ? delegateTaskSchema : a.kind === "llm" ? undefined : tool?.schema;
      return {
        ...a,
        changes: argChanges(a.args, a.approved_args),
        argsSchema: schema ? toJsonSchemaDto(schema) : null,
        argsHash: reviewedArgsHash(a),
        answerSchema: tool?.asksHuman?.answerSchema ? toJsonSchemaDto(tool.asksHuman.answerSchema) : null,
        mcp: mcpOriginOf(a.agent_name, a.tool_name),
      };
    });
}

// The approvals of a run (and its subagents) still waiting for a decision.
export async function pendingApprovalsOf(store: MemoryStore, threadId: string, runId: string): Promise<ApprovalView[]> {
  return (await approvalsOf(store, threadId, runId, () => [])).filter((a) => a.status === "pending");
}
