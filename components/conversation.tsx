"use client";
// The conversation of a run as the snapshot holds it. Model output and tool output are untrusted: they are
// rendered as text nodes only (whitespace kept), never as HTML or markdown-to-HTML.
import { readableText } from "@/lib/display";
import type { ShownApproval, ShownConversation } from "@/lib/dto";
import { conversationOfRun } from "@/lib/dto-shared";
import { approvalAnchor } from "@/lib/runner/ids";
import { JsonView, StateBadge } from "./ui";
import { ApprovalCard } from "./approval-card";
import { GateView } from "./call-view";
import { QuestionCard } from "./question-card";

type Props = {
  conv: ShownConversation;
  approvals: ShownApproval[];
  canDecide: boolean;
  selfForbidden: boolean;
  onDecided: () => void;
  /** Requests whose cards the page shows above the conversation (those waiting for this reader). */
  atTop?: ReadonlySet<string>;
  depth?: number;
};

type CardProps = { canDecide: boolean; selfForbidden: boolean; onDecided: () => void };

// What the result under a call is, in words: a rejected or expired call did not run, and what the model got
// is the reviewer's feedback, not a tool failure.
function resultLabel(success: boolean, approval: ShownApproval | undefined): string {
  if (approval?.kind === "question") return "What the model got";
  if (approval?.status === "rejected") return "Rejected: not run · the model got the reviewer's feedback";
  if (approval?.status === "expired") return "Expired: not run · what the model got";
  if (approval?.status === "responded") return "A reviewer's response: not run · what the model got";
  return success ? "Result · untrusted tool output" : "Result: the tool failed · untrusted tool output";
}

/** The last message a model call would send, and whose it is, as the gate shows it. */
export function lastMessageOf(conv: Pick<ShownConversation, "messages">): { who: string; text: string } | null {
  const m = conv.messages.filter((x) => x.role !== "system").at(-1);
  if (!m) return null;
  if (m.role === "tool") return { who: `result of ${m.name} · untrusted tool output`, text: readableText(m.content) };
  return { who: m.role === "user" ? "user" : "assistant", text: m.content };
}

const Text = ({ children, testId }: { children: string; testId?: string }) => (
  <p data-testid={testId} className="msg-text">
    {children}
  </p>
);

/** Where a card shown at the top of the page sat in the conversation: a link up to it. */
const ShownAbove = ({ approval }: { approval: ShownApproval }) => (
  <p className="mt-2 text-sm" data-testid="card-above">
    {approval.status === "pending" ? "Waits for your decision" : "Decided"}:{" "}
    <a className="text-indigo-700 underline dark:text-indigo-300" href={`#${approvalAnchor(approval.id)}`}>
      its card is at the top of the page
    </a>
  </p>
);

/**
 * The requests for this reader's decision, first on the page (on a phone the conversation puts them
 * screens down): each card with the words that say where it comes from; the conversation links up to them.
 */
export function ForYourDecision({ conv, approvals, ...card }: { conv: ShownConversation; approvals: ShownApproval[] } & CardProps) {
  if (approvals.length === 0) return null;
  return (
    <section className="space-y-3" aria-label="For your decision" data-testid="for-your-decision">
      {approvals.map((a) => {
        const own = conversationOfRun(conv, a.run_id);
        const agent = own?.agent ?? conv.agent;
        return (
          <div key={a.id} data-testid={a.kind === "llm" ? `model-call-gate-${a.step}` : undefined}>
            <p className="mb-1 text-xs text-slate-600 dark:text-slate-400">
              {a.kind === "llm" ? (
                `Before the model call of step ${a.step}`
              ) : (
                <>
                  {a.kind === "question" ? "Question" : "Tool call"} <span className="font-mono">{a.tool_name}</span> · step {a.step}
                </>
              )}{" "}
              · {agent}
            </p>
            {a.kind === "llm" && <GateView args={a.args} lastMessage={own ? lastMessageOf(own) : null} />}
            {a.kind === "question" ? <QuestionCard approval={a} {...card} /> : <ApprovalCard approval={a} {...card} />}
          </div>
        );
      })}
    </section>
  );
}

export function Conversation({ conv, approvals, canDecide, selfForbidden, onDecided, atTop, depth = 0 }: Props) {
  const results = new Map(conv.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m]));
  const called = new Set(conv.messages.flatMap((m) => (m.role === "assistant" ? m.tool_calls.map((c) => c.id) : [])));
  return (
    <ol className="space-y-3" aria-label={depth ? `Conversation of ${conv.agent}` : "Conversation"}>
      {conv.messages.map((m, i) => {
        if (m.role === "system")
          return (
            <li key={i}>
              <details className="card">
                <summary className="cursor-pointer text-xs font-semibold uppercase text-slate-500 dark:text-slate-400">System</summary>
                <Text>{m.content}</Text>
              </details>
            </li>
          );
        if (m.role === "user")
          return (
            <li key={i} className="card border-l-4 border-l-indigo-400">
              <p className="msg-label">User</p>
              <Text>{m.content}</Text>
            </li>
          );
        if (m.role === "tool") {
          if (called.has(m.tool_call_id)) return null; // shown under its call
          return (
            <li key={i} className="card">
              <p className="msg-label">Tool result · {m.name}</p>
              <Text>{readableText(m.content)}</Text>
            </li>
          );
        }
        return (
          <li key={i} className="card border-l-4 border-l-emerald-400">
            <p className="msg-label">Assistant · {conv.agent}</p>
            {m.content && <Text testId="assistant-text">{m.content}</Text>}
            {m.tool_calls.length > 0 && (
              <ul className="mt-3 space-y-3">
                {m.tool_calls.map((c) => {
                  const result = results.get(c.id);
                  const approval = approvals.find((a) => a.run_id === conv.runId && a.tool_call_id === c.id);
                  const child = conv.children[c.id];
                  const above = approval && atTop?.has(approval.id);
                  return (
                    <li key={c.id} className="call-box" data-testid={`tool-call-${c.name}`}>
                      <p className="text-sm font-medium">
                        Tool call <span className="font-mono">{c.name}</span> <span className="call-id">{c.id}</span>
                      </p>
                      {/* A call a reviewer decides is shown by its card (what will run, edits applied); others as they were made. */}
                      {above && <ShownAbove approval={approval} />}
                      {!above && !(approval && approval.kind !== "question") && (
                        <JsonView value={c.args} label={`Arguments of ${c.name}`} />
                      )}
                      {!above && approval?.kind === "question" && (
                        <QuestionCard approval={approval} canDecide={canDecide} selfForbidden={selfForbidden} onDecided={onDecided} />
                      )}
                      {!above && approval && approval.kind !== "question" && (
                        <ApprovalCard approval={approval} canDecide={canDecide} selfForbidden={selfForbidden} onDecided={onDecided} />
                      )}
                      {child && (
                        <section
                          className="mt-3 border-l-2 border-slate-300 pl-3 dark:border-slate-600"
                          aria-label={`Subagent ${child.agent}`}
                        >
                          <p className="mb-2 text-sm font-medium">
                            Subagent {child.agent} <StateBadge state={child.state} />
                          </p>
                          <Conversation
                            conv={child}
                            approvals={approvals}
                            canDecide={canDecide}
                            selfForbidden={selfForbidden}
                            onDecided={onDecided}
                            atTop={atTop}
                            depth={depth + 1}
                          />
                        </section>
                      )}
                      {result && (
                        <div className="mt-2">
                          <p className="text-xs font-semibold text-slate-600 dark:text-slate-400" data-testid={`result-label-${c.name}`}>
                            {resultLabel(result.success, approval)}
                          </p>
                          <Text testId={`tool-result-${c.name}`}>{readableText(result.content)}</Text>
                        </div>
                      )}
                    </li>
                  );
                })}
              </ul>
            )}
          </li>
        );
      })}
      {approvals
        .filter((a) => a.run_id === conv.runId && a.kind === "llm")
        .map((a) => (
          // A gate before a model call belongs to no tool call: it comes after the conversation so far.
          <li
            key={a.id}
            className="card border-l-4 border-l-amber-400"
            data-testid={atTop?.has(a.id) ? undefined : `model-call-gate-${a.step}`}
          >
            <p className="msg-label">
              Before the model call of step {a.step} · {conv.agent}
            </p>
            {atTop?.has(a.id) ? (
              <ShownAbove approval={a} />
            ) : (
              <>
                <GateView args={a.args} lastMessage={lastMessageOf(conv)} />
                <ApprovalCard approval={a} canDecide={canDecide} selfForbidden={selfForbidden} onDecided={onDecided} />
              </>
            )}
          </li>
        ))}
    </ol>
  );
}
