// A rule's confirmAbove as the reviewer reads it: "Approve issue_refund with Amount €1,500.00? It is above
// €1,000.00 (rule refund-large)." Shown before Approve decides, wherever a request can be approved.
import type { AgentRegistry } from "../agents/registry.ts";
import { fieldLabel, formatValue } from "../display.ts";
import type { ApprovalRecord } from "../runner/index.ts";

type Asked = Pick<ApprovalRecord, "agent_name" | "rule_id" | "tool_name" | "kind" | "args" | "approved_args" | "status">;

export function confirmOf(agents: Pick<AgentRegistry, "find"> | undefined, a: Asked, argsSchema: unknown): string | null {
  if (a.kind !== "tool" || a.status !== "pending" || !a.rule_id) return null;
  const rule = agents?.find(a.agent_name)?.policy?.find((r) => r.id === a.rule_id);
  const c = rule?.confirmAbove;
  if (!c) return null;
  const raw = (a.approved_args ?? a.args)[c.field];
  const v = typeof raw === "number" ? raw : Number(raw);
  if (!Number.isFinite(v) || v <= c.value) return null;
  const prop = (argsSchema as { properties?: Record<string, unknown> } | null)?.properties?.[c.field];
  return `Approve ${a.tool_name} with ${fieldLabel(c.field, prop)} ${formatValue(v, prop)}? It is above ${formatValue(c.value, prop)} (rule ${rule.id}).`;
}
