// The CLI's readable output: tables with a header row, ISO 8601 times, states in words. (`--json` prints
// the API's answer instead; see lib/cli/main.ts.)
import { summarizeArgs } from "../display.ts";
import type { InboxDto, RunApproval, RunView } from "../dto.ts";
import { fmtCost, plural } from "../format.ts";
import { RUN } from "../runner/run-states.ts";
import type { DecisionResult, RunList, TimelinePage } from "./backend.ts";

const iso = (v: string | number | null | undefined) => (v == null ? "—" : new Date(v).toISOString());
const oneLine = (s: string, max = 80) => {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** Columns padded to their widest cell; the last column is never padded. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

/** The run's state as a sentence: what it is doing or waiting for. */
export function stateInWords(v: RunView): string {
  const r = v.run;
  const pending = v.approvals.filter((a) => a.status === "pending").length;
  switch (r.state) {
    case "pending":
      return "pending: not started yet";
    case "running":
      return `running: step ${r.step}${r.phase ? `, ${r.phase.replaceAll("_", " ")}` : ""}`;
    case "paused":
      if (v.corruption) return "paused: a record is unreadable, nothing can be decided or resumed";
      return pending ? `paused: waiting for ${plural(pending, "decision")}` : "paused: every call is decided, ready to resume";
    case "cancelling":
      return "cancelling: stopping at its next checkpoint";
    case "failed":
      return `failed${r.error ? `: ${oneLine(r.error, 200)}` : ""}`;
    default:
      return r.state;
  }
}

function answerOf(v: RunView): string | null {
  if (v.run.state !== RUN.completed) return null;
  const last = v.conversation?.messages.findLast((m) => m.role === "assistant" && m.content.trim());
  return last ? last.content : null;
}

function approvalRows(approvals: RunApproval[]) {
  return approvals.map((a) => [
    a.id,
    a.tool_name,
    a.kind,
    a.status === "pending" && a.quorum > 1
      ? `pending (${a.decisions.filter((d) => d.decision === "approve").length} of ${a.quorum})`
      : a.status,
    iso(a.requested_at_ms),
    // As the console's cards read them: labels and values formatted from the schema (€60.00, not 6000).
    a.kind === "question" ? oneLine(String(a.args.question ?? "")) : summarizeArgs(a.approved_args ?? a.args, a.argsSchema, 80),
  ]);
}

export function printRun(v: RunView): string {
  const r = v.run;
  const lines: [string, string][] = [
    ["run", r.id],
    ["agent", r.agentName],
    ["state", stateInWords(v)],
    ["submitted", `${r.submittedByEmail ?? "—"} at ${iso(r.createdAt)}`],
    ["finished", iso(r.finishedAt)],
    ["usage", `${plural(r.step, "step")} · ${r.totalTokens} tokens · ${fmtCost(r.costUsd)}${r.model ? ` · ${r.model}` : ""}`],
    ["checkpoints", String(v.checkpointCount)],
  ];
  if (r.forkedFromRunId) lines.push(["forked from", `${r.forkedFromRunId} at checkpoint ${r.forkedFromSeq}`]);
  if (v.corruption) lines.push(["unreadable", `${v.corruption.message}${v.corruption.key ? ` (key ${v.corruption.key})` : ""}`]);
  const answer = answerOf(v);
  if (answer) lines.push(["answer", oneLine(answer, 300)]);
  const width = Math.max(...lines.map(([k]) => k.length));
  const out = [lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join("\n")];
  if (v.approvals.length) out.push("", table(["APPROVAL", "TOOL", "KIND", "STATUS", "REQUESTED", "ARGUMENTS"], approvalRows(v.approvals)));
  return out.join("\n");
}

export function printRuns(list: RunList): string {
  if (!list.runs.length) return "No runs.";
  const rows = list.runs.map((r) => [
    r.id,
    r.agentName,
    r.ready ? "paused, ready to resume" : r.state,
    String(r.step),
    r.submittedByEmail ?? "—",
    iso(r.createdAt),
  ]);
  const out = table(["RUN", "AGENT", "STATE", "STEP", "SUBMITTED BY", "CREATED"], rows);
  return list.nextCursor ? `${out}\n\nMore: --cursor ${list.nextCursor}` : out;
}

export function printInbox(inbox: InboxDto): string {
  const out: string[] = [];
  if (!inbox.approvals.length) out.push("No approvals waiting.");
  else {
    const rows = inbox.approvals.map((a) => [
      a.id,
      a.rootAgent === a.agent ? a.agent : `${a.rootAgent} > ${a.agent}`,
      a.tool,
      a.kind,
      iso(a.requestedAtMs),
      !a.canDecide
        ? `no: routed to ${a.groups.join(", ")}`
        : a.decidedByMe
          ? "decided by you"
          : a.quorum > 1
            ? `yes (${a.approvals} of ${a.quorum} approvals)`
            : "yes",
      oneLine(a.summary, 60),
    ]);
    out.push(table(["APPROVAL", "AGENT", "TOOL", "KIND", "WAITING SINCE", "YOU DECIDE", "SUMMARY"], rows));
  }
  for (const c of inbox.corrupt) out.push(`unreadable: ${c.key}${c.runId ? ` (run ${c.runId})` : ""}: ${c.message}`);
  if (inbox.nextCursor) out.push("", `More: --cursor ${inbox.nextCursor}`);
  return out.join("\n");
}

export function printCheckpoints(page: TimelinePage): string {
  const rows = page.checkpoints.map((c) => [String(c.seq), String(c.step), c.phase, iso(c.timestamp_ms)]);
  const out = [rows.length ? table(["SEQ", "STEP", "PHASE", "TIME"], rows) : "No checkpoints."];
  for (const c of page.corrupt) out.push(`unreadable: ${c.key}: ${c.message}`);
  if (page.run.prunedCheckpoints) out.push(`${page.run.prunedCheckpoints} checkpoints pruned at ${iso(page.run.prunedAt)}`);
  if (page.nextCursor) out.push("", `More: --cursor ${page.nextCursor}`);
  return out.join("\n");
}

const VERB = { approve: "Approved", reject: "Rejected", respond: "Answered" } as const;

export function printDecision(r: DecisionResult, decision: keyof typeof VERB): string {
  const a = r.approval;
  const approvals = a.decisions.filter((d) => d.decision === "approve").length;
  const status = a.status === "pending" ? `still pending: ${approvals} of ${a.quorum} approvals` : a.status;
  const lines = [`${VERB[decision]} ${a.id} (${a.tool_name}): ${status}`];
  if (r.resumed) lines.push(`Run ${a.root_run_id} resumes by itself (its agent resumes once every call is decided).`);
  return lines.join("\n");
}
