// The run view as the run page's HTML carries it: the fields its components read (RunPageView), not the
// rest of the records. Each is serialized into the page's hydration payload, and the tool executions
// repeated every tool result the conversation's messages hold.
import type { ConversationView, RunApproval, RunPageView, RunView, ShownApproval, ShownConversation } from "@/lib/dto";

function shownConversation({ toolExecutions: _e, children, ...conv }: ConversationView): ShownConversation {
  return { ...conv, children: Object.fromEntries(Object.entries(children).map(([id, c]) => [id, shownConversation(c)])) };
}

function shownApproval({
  schema_version: _s,
  version: _v,
  root_run_id: _r,
  thread_id: _t,
  input_hash: _h,
  requested_at_ms: _q,
  rule_id: _u,
  agent_path: _p,
  agent_name: _n,
  requested_by: _b,
  ...shown
}: RunApproval): ShownApproval {
  return shown;
}

export function runPageView({ run, conversation, approvals, ...view }: RunView): RunPageView {
  const {
    threadId: _t,
    submittedById: _s,
    cancelRequested: _c,
    corruptKey: _k,
    prunedAt: _p,
    prunedCheckpoints: _n,
    external: _e,
    updatedAt: _u,
    ...shownRun
  } = run;
  return {
    ...view,
    run: shownRun,
    conversation: conversation && shownConversation(conversation),
    approvals: approvals.map(shownApproval),
  };
}
