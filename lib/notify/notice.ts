// A request as a notification shows it: the values formatted as on the card (lib/display: money, dates,
// enum labels), who asked, the deadline and one link to the card.
import { z } from "zod";
import { fieldViews } from "../display.ts";
import { approvalAnchor, reviewedArgsHash, type Tool } from "../runner/index.ts";
import type { ApprovalRecord } from "./approvals.ts";
import type { Notice } from "./channel.ts";

const KINDS: Record<ApprovalRecord["kind"], string> = { tool: "tool_call", question: "question", llm: "gate", subagent: "gate" };

const jsonSchemas = new WeakMap<object, unknown>();
function jsonSchemaOf(tool: Pick<Tool, "schema"> | undefined): unknown {
  if (!tool) return null;
  let s = jsonSchemas.get(tool.schema);
  if (s === undefined) {
    try {
      s = z.toJSONSchema(tool.schema as z.ZodType);
    } catch {
      s = null;
    }
    jsonSchemas.set(tool.schema, s);
  }
  return s;
}

function titleOf(a: ApprovalRecord): string {
  if (a.kind === "question") return typeof a.args.question === "string" ? a.args.question : `Question from ${a.agent_name}`;
  if (a.kind === "llm") return `Approve a model call of ${a.agent_name}`;
  if (a.kind === "subagent") return `Approve a delegation to ${a.tool_name}`;
  return `Approve ${a.tool_name}`;
}

export function noticeOf(a: ApprovalRecord, tool: Pick<Tool, "schema"> | undefined, baseUrl: string, requestedBy: string | null): Notice {
  const schema = a.external?.args_schema ?? jsonSchemaOf(tool);
  const fields = fieldViews(a.args, schema).map((f) => ({ label: f.label, value: f.text }));
  return {
    approvalId: a.id,
    runId: a.root_run_id,
    agent: a.agent_name,
    kind: a.external ? "external" : KINDS[a.kind],
    title: titleOf(a),
    fields,
    requestedBy: requestedBy ?? a.requested_by,
    deadline: a.deadline_ms === null ? null : new Date(a.deadline_ms).toISOString(),
    url: `${baseUrl.replace(/\/$/, "")}/runs/${encodeURIComponent(a.root_run_id)}#${approvalAnchor(a.id)}`,
    routingGroups: a.groups,
    // A decision taken from the message (Slack's buttons) is refused if the arguments changed since.
    argsHash: reviewedArgsHash(a),
  };
}
