/**
 * Policy rules decide, before each tool call, whether it runs, is denied, or waits for a human.
 * Highest priority first; the first matching rule wins; no match means allow.
 */
export type PolicyAction = "allow" | "deny" | "require_approval";

/**
 * A policy rule: which tool calls (by name glob and argument conditions) are allowed, denied or need approval, and by how many reviewers.
 */
export type PolicyRule = {
  id: string;
  /** Exact tool name, a glob with `*`, or a RegExp. */
  tool: string | RegExp;
  when?: (args: Record<string, unknown>, context: Record<string, unknown>) => boolean;
  action: PolicyAction;
  priority?: number;
  reason?: string;
  /** Approvals needed from distinct reviewers (default 1). */
  quorum?: number;
  /** How long a human has to decide, after which the fallback applies. */
  approvalTimeoutS?: number;
};

export type PolicyDecision = { action: PolicyAction; ruleId: string | null; reason: string; quorum: number; approvalTimeoutS?: number };

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

/** The matching rule of highest priority (then the first listed) decides a tool call; with no match the call is allowed. */
export function evaluatePolicy(
  rules: PolicyRule[],
  toolName: string,
  args: Record<string, unknown>,
  context: Record<string, unknown>,
): PolicyDecision {
  const ordered = rules.map((r, i) => ({ r, i })).sort((a, b) => (b.r.priority ?? 0) - (a.r.priority ?? 0) || a.i - b.i);
  for (const { r } of ordered) {
    if (!matchesToolName(r.tool, toolName)) continue;
    if (r.when && !r.when(args, context)) continue;
    return {
      action: r.action,
      ruleId: r.id,
      reason: r.reason ?? `rule ${r.id}`,
      quorum: Math.max(1, r.quorum ?? 1),
      approvalTimeoutS: r.approvalTimeoutS,
    };
  }
  return { action: "allow", ruleId: null, reason: "default allow", quorum: 1 };
}
