/**
 * Policy rules decide at three gates, as the reference does: before each tool call, before a model call
 * and before a delegation to a subagent. At each gate the matching rule of highest priority wins (then
 * the first listed); no match means allow.
 */
export type PolicyAction = "allow" | "deny" | "require_approval";

/** Where a rule applies: a tool call (the default), a model call, a delegation to a subagent. */
export type PolicyGate = "tool" | "llm" | "subagent";

/** What a model-call rule sees before the call: the run so far and the model about to be called. */
export type LlmGateFacts = {
  model: string;
  step: number;
  llm_calls: number;
  total_cost_usd: number;
  total_tokens: number;
  message_count: number;
};

type RuleCommon = {
  id: string;
  action: PolicyAction;
  priority?: number;
  reason?: string;
  /** Approvals needed from distinct reviewers (default 1). */
  quorum?: number;
  /** How long a human has to decide, after which the fallback applies. */
  approvalTimeoutS?: number;
  /**
   * Routing: the groups whose members may decide (any of them). Absent or empty: anyone who may decide
   * approvals. The names are the console's user groups (lowercase letters, digits and dashes).
   */
  groups?: string[];
  /**
   * Notifications of its requests (lib/notify): remind the reviewers after `remindAfter` of the time to
   * decide (a share, 0–1; again at each multiple, at most `maxReminders`, default 1), and tell the
   * fallback `escalateTo` (group names or emails) after `escalateAfter`. Needs `approvalTimeoutS`.
   */
  notify?: { remindAfter?: number; maxReminders?: number; escalateAfter?: number; escalateTo?: string[] };
  /**
   * Approving a call whose argument `field` is above `value` (a refund over 1,000.00) asks the reviewer to
   * confirm first, in every console view (one tap on a phone is not enough). The console reads it from the
   * rule when it shows the request; the decision itself is made once, as any other.
   */
  confirmAbove?: { field: string; value: number };
};

/**
 * A policy rule. A tool rule matches tool calls by name (exact, a glob with `*`, or a RegExp) and
 * arguments; a model-call rule (`gate: "llm"`) matches the model and the run's facts before the call; a
 * subagent rule (`gate: "subagent"`) matches the subagent's name and the task it is given.
 */
export type PolicyRule = RuleCommon &
  (
    | { gate?: "tool"; tool: string | RegExp; when?: (args: Record<string, unknown>, context: Record<string, unknown>) => boolean }
    | { gate: "llm"; model?: string | RegExp; when?: (facts: LlmGateFacts, context: Record<string, unknown>) => boolean }
    | { gate: "subagent"; subagent?: string | RegExp; when?: (args: { task: string }, context: Record<string, unknown>) => boolean }
  );

export type PolicyDecision = {
  action: PolicyAction;
  ruleId: string | null;
  reason: string;
  quorum: number;
  approvalTimeoutS?: number;
  /** Who may decide the request this decision makes (empty: anyone who may decide approvals). */
  groups: string[];
};

/** True when a tool name matches a rule's pattern: the exact name, a glob with `*`, or a RegExp. */
export function matchesToolName(pattern: string | RegExp, name: string): boolean {
  if (pattern instanceof RegExp) return pattern.test(name);
  if (!pattern.includes("*")) return pattern === name;
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return re.test(name);
}

const gateOf = (r: PolicyRule): PolicyGate => r.gate ?? "tool";

function patternOf(r: PolicyRule): string | RegExp {
  if (r.gate === "llm") return r.model ?? "*";
  if (r.gate === "subagent") return r.subagent ?? "*";
  return r.tool;
}

/** True when some rule applies at this gate (a gate without rules costs nothing). */
export const hasGate = (rules: PolicyRule[] | undefined, gate: PolicyGate) => !!rules?.some((r) => gateOf(r) === gate);

/**
 * Decides at one gate: `name` is the tool's, the model's or the subagent's name, `args` the tool's
 * arguments, the LlmGateFacts or `{task}`.
 */
export function evaluatePolicy(
  rules: PolicyRule[],
  name: string,
  args: Record<string, unknown>,
  context: Record<string, unknown>,
  gate: PolicyGate = "tool",
): PolicyDecision {
  const ordered = rules
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => gateOf(r) === gate)
    .sort((a, b) => (b.r.priority ?? 0) - (a.r.priority ?? 0) || a.i - b.i);
  for (const { r } of ordered) {
    if (!matchesToolName(patternOf(r), name)) continue;
    if (r.when && !(r.when as (a: unknown, c: Record<string, unknown>) => boolean)(args, context)) continue;
    return {
      action: r.action,
      ruleId: r.id,
      reason: r.reason ?? `rule ${r.id}`,
      quorum: Math.max(1, r.quorum ?? 1),
      approvalTimeoutS: r.approvalTimeoutS,
      groups: [...new Set(r.groups ?? [])],
    };
  }
  return { action: "allow", ruleId: null, reason: "default allow", quorum: 1, groups: [] };
}
