// One request as the inbox's preview pane shows it: the approval as its run page has it, the conversation
// that led to it (its last messages up to the call, as text, cut), the results of earlier calls that bear
// on it (as fields) and where it asks for more than they allow. Read through the run page's service, so
// the same checks hold (a reviewer who may decide and see the run; an unreadable record is a 409 there).
import "server-only";
import type { Actor } from "../auth/actor.ts";
import { NotFoundError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import { type RelatedResult, requestChecks, resultFields } from "../display-call.ts";
import { type ApprovalPreviewDto, type PreviewMessage, approvalPreviewDto, conversationOfRun } from "../dto.ts";
import { parseApprovalId } from "../runner/index.ts";
import { authorize } from "./access.ts";
import { getRunView } from "./run-view.ts";

/** Messages of the excerpt, and characters of each (the rest is on the run page). */
export const EXCERPT_MESSAGES = 6;
export const EXCERPT_CHARS = 1200;
/** Earlier results shown beside a request. */
const RELATED_RESULTS = 3;

const cut = (text: string): Pick<PreviewMessage, "text" | "cut"> =>
  text.length > EXCERPT_CHARS ? { text: `${text.slice(0, EXCERPT_CHARS - 1)}…`, cut: true } : { text, cut: false };

export async function approvalPreview(
  ctx: AppContext,
  actor: Actor | null,
  { approvalId }: { approvalId: string },
): Promise<ApprovalPreviewDto> {
  const who = authorize(actor, "approvals:decide");
  const ref = parseApprovalId(approvalId);
  if (!ref) throw new NotFoundError("No such approval");
  const view = await getRunView(ctx, who, { runId: ref.rootRunId });
  const approval = view.approvals.find((a) => a.id === approvalId);
  if (!approval) throw new NotFoundError("No such approval");
  const conv = conversationOfRun(view.conversation, approval.run_id);
  const messages = conv?.messages ?? [];
  // Up to the assistant message that made the call; a model-call gate waits after the conversation so far
  // (what the model call would send).
  let end = messages.length;
  if (approval.kind !== "llm") {
    const at = messages.findLastIndex((m) => m.role === "assistant" && m.tool_calls.some((c) => c.id === approval.tool_call_id));
    if (at >= 0) end = at + 1;
  }
  const before = messages.slice(0, end);
  const excerpt: PreviewMessage[] = before
    .filter((m) => m.role !== "system")
    .slice(-EXCERPT_MESSAGES)
    .map((m) =>
      m.role === "tool"
        ? { role: "tool", name: m.name, ...cut(m.content) }
        : m.role === "assistant"
          ? { role: "assistant", name: m.agent ?? conv?.agent ?? null, ...cut(m.content) }
          : { role: "user", name: null, ...cut(m.content) },
    );
  const results = before.flatMap((m) =>
    m.role === "tool" && m.success ? [{ tool: m.name, callId: m.tool_call_id, content: m.content }] : [],
  );
  const related: RelatedResult[] = results.slice(-RELATED_RESULTS).flatMap((r) => {
    const fields = resultFields(r.content, approval.argsSchema);
    return fields?.length ? [{ tool: r.tool, callId: r.callId, fields }] : [];
  });
  const args = approval.approved_args ?? approval.args;
  return approvalPreviewDto.parse({
    schemaVersion: 1,
    approval,
    run: { id: view.run.id, agentName: view.run.agentName, state: view.run.state, submittedByEmail: view.run.submittedByEmail },
    selfApprovalForbidden: view.selfApprovalForbidden,
    excerpt,
    related,
    checks: approval.kind === "tool" ? requestChecks(args, approval.argsSchema, results) : [],
    asOfMs: view.asOfMs,
  });
}
