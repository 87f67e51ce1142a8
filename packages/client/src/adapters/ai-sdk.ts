// The Vercel AI SDK (`ai` 6) through the runtime protocol. A tool with `needsApproval` ends generateText
// with `tool-approval-request` parts in the response messages; parkApprovals parks every request of the
// conversation that has no response yet in the console's inbox (one batch). The conversation (prompt plus
// `result.response.messages`) is plain JSON: the runtime keeps it. Any process later calls
// approvalResponses with it: it waits for every decision, claims each exactly once and returns the `tool`
// message of `tool-approval-response` parts to append; generateText then runs the approved calls and
// tells the model of the denied ones (with the reviewer's reason). The SDK cannot run a call with edited
// arguments, so its interrupts offer approve and reject only. Nothing of `ai` is imported but its types.
import type { ModelMessage, ToolApprovalResponse, ToolModelMessage } from "ai";
import { approveOrReject, newClaimant, type ParkOptions, type ResumeOptions, type RuntimeClient, type RuntimeDecision } from "../index.ts";

export type { ParkOptions, ResumeOptions };

export const FRAMEWORK = "ai-sdk";

/** An approval request of the conversation that has no response yet, with the tool call it is for. */
export type PendingApproval = { approvalId: string; toolCallId: string; toolName: string; input: unknown };

type Part = { type?: string; approvalId?: string; toolCallId?: string; toolName?: string; input?: unknown };
const partsOf = (m: ModelMessage): Part[] => (Array.isArray(m.content) ? (m.content as Part[]) : []);

/** The conversation's approval requests that no `tool-approval-response` answers yet, in order. */
export function pendingApprovals(messages: ModelMessage[]): PendingApproval[] {
  const calls = new Map<string, Part>();
  const answered = new Set<string>();
  const requests: Part[] = [];
  for (const m of messages)
    for (const p of partsOf(m)) {
      if (p.type === "tool-call" && p.toolCallId) calls.set(p.toolCallId, p);
      else if (p.type === "tool-approval-request") requests.push(p);
      else if (p.type === "tool-approval-response" && p.approvalId) answered.add(p.approvalId);
    }
  return requests
    .filter((r) => r.approvalId && !answered.has(r.approvalId))
    .map((r) => {
      const call = calls.get(r.toolCallId ?? "");
      if (!call?.toolName) throw new Error(`Approval ${r.approvalId} names tool call ${r.toolCallId}, which the conversation lacks`);
      return { approvalId: r.approvalId as string, toolCallId: call.toolCallId as string, toolName: call.toolName, input: call.input };
    });
}

const argsOf = (input: unknown): Record<string, unknown> =>
  input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : { input };

/** Parks the conversation's unanswered approval requests as one batch; returns their interrupt ids. */
export async function parkApprovals(
  client: RuntimeClient,
  runId: string,
  messages: ModelMessage[],
  opts: ParkOptions = {},
): Promise<string[]> {
  const pending = pendingApprovals(messages);
  if (pending.length)
    await client.parkInterrupts(runId, {
      batchId: pending.map((p) => p.approvalId).join(","),
      interrupts: pending.map((p) =>
        approveOrReject(p.approvalId, { name: p.toolName, args: argsOf(p.input), callId: p.toolCallId }, opts),
      ),
    });
  return pending.map((p) => p.approvalId);
}

/** One console decision as the SDK's approval response: approve, or deny with the reviewer's reason. */
export function approvalResponse(approvalId: string, d: RuntimeDecision): ToolApprovalResponse {
  if (d.decision === "approve") return { type: "tool-approval-response", approvalId, approved: true };
  if (d.decision === "edit") throw new Error("The AI SDK cannot run a call with edited arguments; edit was not offered");
  return {
    type: "tool-approval-response",
    approvalId,
    approved: false,
    reason: d.message ?? (d.decision === "expire" ? "Nobody approved this in time" : "Rejected by a reviewer"),
  };
}

/**
 * Waits for a decision on each unanswered approval request of the conversation, claims them all for one
 * claimant and returns the tool message to append: `generateText({ …, messages: [...messages, await
 * approvalResponses(…)] })`. Another claimant holding one is a ClaimedByAnotherError and nothing is returned.
 */
export async function approvalResponses(
  client: RuntimeClient,
  runId: string,
  messages: ModelMessage[],
  opts: ResumeOptions = {},
): Promise<ToolModelMessage> {
  const claimant = opts.claimant ?? newClaimant();
  const ids = pendingApprovals(messages).map((p) => p.approvalId);
  await client.waitForDecisions(runId, ids, opts);
  const content: ToolApprovalResponse[] = [];
  for (const id of ids) content.push(approvalResponse(id, await client.claim(runId, id, { claimant, leaseS: opts.leaseS })));
  return { role: "tool", content };
}
