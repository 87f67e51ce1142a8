// Run and approval ids. The runner owns their format; everything else builds and parses them here.

/** A subagent's run id: its parent's run id, a dot, and the tool call that delegated to it. */
export const childRunId = (parentRunId: string, toolCallId: string) => `${parentRunId}.${toolCallId}`;

/** The top-level run a (possibly nested) subagent run belongs to. */
export const rootRunOf = (runId: string) => runId.split(".")[0];

/** Who closed the requests of a run that ended (cancelled, failed) before anyone decided them. */
export const RUN_ENDED_DECIDER = "system:run-ended";

/** True when the tool name is the delegation tool of a subagent. */
export const isDelegateTool = (toolName: string) => toolName.startsWith("delegate_to_");

/**
 * An approval id names one request: the run, the step and the tool call. Providers reuse tool call ids
 * across steps (the demo model does, and so do some OpenAI-compatible servers), so the step is part of it.
 */
export const approvalId = (runId: string, step: number, toolCallId: string) => `${runId}:${step}:${toolCallId}`;

export type ParsedApprovalId = { runId: string; rootRunId: string; step: number | null; toolCallId: string };

/** Parses an approval id; ids written before steps were part of them (`run:toolCallId`) have step null. */
export function parseApprovalId(id: string): ParsedApprovalId | null {
  const m = /^([^:]+):(?:(\d{1,9}):)?(.+)$/.exec(id);
  if (!m) return null;
  return { runId: m[1], rootRunId: rootRunOf(m[1]), step: m[2] === undefined ? null : Number(m[2]), toolCallId: m[3] };
}

/**
 * The tool call id of a model-call gate's approval (`<run>:<step>:model_call`): one model call per step, and
 * no provider names a tool call so.
 */
export const LLM_GATE_CALL_ID = "model_call";

/** The run page's anchor of an approval's card (the pause webhook's deep links point at it). */
export const approvalAnchor = (approvalId: string) => `approval-${encodeURIComponent(approvalId)}`;
