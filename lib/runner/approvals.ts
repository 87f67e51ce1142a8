// One file: the approval record's schema and every change of it (request, decision, deadline, cancel,
// withdrawal) with the reads they rest on, which all turn on the same version compare-and-set.
// Durable approval requests. A tool call that needs a human is stored here and the run ends its execution
// in state `paused`; any process later records decisions and resumes the run. The approval binds the
// arguments: the run executes exactly approved_args, whose hash is stored with every decision.
import { z } from "zod";
import type { ApprovalStore, StoredApproval } from "./approval-port.ts";
import { approvalKey, approvalName, approvalStoreOf } from "./approval-store.ts";
import { SCHEMA_VERSIONS, versionField } from "./versions.ts";
import { hashOf } from "./canonical.ts";
import { AgentCheckpointCorruptionError, ApprovalDecisionError } from "./errors.ts";
import type { MemoryStore } from "./store.ts";
import { RUN_ENDED_DECIDER, approvalId } from "./ids.ts";
import type { Tool } from "./tools.ts";
import { delegateTaskSchema } from "./agent.ts";
import { assertOffered, externalInterruptSchema, externalTool } from "./external.ts";

export const APPROVAL_SCHEMA_VERSION = SCHEMA_VERSIONS.approval;

export const decisionSchema = z.object({
  by: z.string(),
  // respond: the reviewer answers in the tool's place; reason holds the answer the model sees.
  decision: z.enum(["approve", "reject", "respond"]),
  reason: z.string().nullable(),
  args: z.record(z.string(), z.unknown()),
  args_hash: z.string(),
  at_ms: z.number().int(),
  /** A question's answer filled from its answer schema (respond only; text answers are in reason). */
  answer: z.record(z.string(), z.unknown()).nullable().default(null),
});
export type Decision = z.infer<typeof decisionSchema>;

// Decisions the runtime takes by itself are made by "system:<why>", never by a person.
const DEADLINE_DECIDER = "system:deadline";
export const WITHDRAWN_DECIDER = "system:withdrawn"; // an external runtime withdrew it (its request ended)

/** True when a decision was taken by the runtime (a deadline's fallback), not by a person. */
export const isSystemDecision = (d: { by: string }) => d.by.startsWith("system:");

/** What waits: a tool call, a question (askHuman), a model call (gate "llm"), a delegation (gate "subagent"). */
export const APPROVAL_KINDS = ["tool", "question", "llm", "subagent"] as const;

export const approvalRecordSchema = z.object({
  schema_version: versionField("approval"),
  version: z.number().int().nonnegative(),
  /**
   * tool: a tool call waits for a decision; question: the model asked a reviewer (askHuman); llm: the model
   * call of a step waits (a gate before the model); subagent: a delegation waits (a gate before a subagent).
   */
  kind: z.enum(APPROVAL_KINDS).default("tool"),
  id: z.string(),
  run_id: z.string(),
  /** The top-level run to resume (differs from run_id for a subagent's approval). */
  root_run_id: z.string(),
  thread_id: z.string(),
  step: z.number().int(),
  tool_call_id: z.string(),
  tool_name: z.string(),
  agent_name: z.string(),
  agent_path: z.string(),
  args: z.record(z.string(), z.unknown()),
  input_hash: z.string(),
  reason: z.string(),
  rule_id: z.string().nullable(),
  quorum: z.number().int().positive(),
  /** Routing: the groups whose members may decide (any of them); empty: anyone who may decide approvals. */
  groups: z.array(z.string()).default([]),
  requested_at_ms: z.number().int(),
  deadline_ms: z.number().int().nullable(),
  fallback: z.enum(["deny", "allow"]),
  requested_by: z.string().nullable(),
  status: z.enum(["pending", "approved", "rejected", "expired", "responded"]),
  decisions: z.array(decisionSchema),
  approved_args: z.record(z.string(), z.unknown()).nullable(),
  decided_at_ms: z.number().int().nullable(),
  /** Parked by an external runtime (the runtime protocol): what it can apply and its schemas; null: ours. */
  external: externalInterruptSchema.optional(),
});
export type ApprovalRecord = z.infer<typeof approvalRecordSchema>;

/** The hash that identifies a set of tool arguments (canonical JSON, sha256). */
export const argsHash = (args: unknown) => hashOf(args);

/** Validates a stored approval record; anything malformed is an AgentCheckpointCorruptionError naming the key. */
export function parseApproval(raw: unknown, key: string): ApprovalRecord {
  const p = approvalRecordSchema.safeParse(raw);
  if (!p.success) throw new AgentCheckpointCorruptionError("Approval record is malformed", key);
  return p.data;
}

export { approvalKey };

/** A stored approval's text read as a record; anything unreadable is corruption naming its key. */
export function readApproval(s: StoredApproval, what = "Approval record"): ApprovalRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(s.text);
  } catch {
    throw new AgentCheckpointCorruptionError(`${what} is not valid JSON`, s.key);
  }
  return parseApproval(raw, s.key);
}

/** Reads stored approvals, setting the unreadable apart (named by key, with the run they belong to). */
export function readApprovals(stored: (StoredApproval & { runId?: string | null })[]): {
  ok: ApprovalRecord[];
  bad: { key: string; runId: string | null; message: string }[];
} {
  const ok: ApprovalRecord[] = [];
  const bad: { key: string; runId: string | null; message: string }[] = [];
  for (const s of stored) {
    try {
      ok.push(readApproval(s));
    } catch (e) {
      if (!(e instanceof AgentCheckpointCorruptionError)) throw e;
      bad.push({ key: s.key, runId: s.runId ?? null, message: e.message });
    }
  }
  return { ok, bad };
}

// A value the store could not parse is corruption of the record it names.
function corrupt(e: unknown, what: string, key: string): never {
  if (e instanceof SyntaxError) throw new AgentCheckpointCorruptionError(`${what} is not valid JSON`, (e as { key?: string }).key ?? key);
  throw e;
}

/** Reads one approval by its id; null when there is none. An unreadable record is corruption. */
export async function getApproval(store: MemoryStore, threadId: string, id: string): Promise<ApprovalRecord | null> {
  let stored: StoredApproval | undefined;
  try {
    stored = await approvalStoreOf(store).get(threadId, id);
  } catch (e) {
    corrupt(e, "Approval record", approvalName(id));
  }
  if (!stored) return null;
  const rec = readApproval(stored);
  if (rec.id !== id) throw new AgentCheckpointCorruptionError(`Approval record names ${rec.id}, not ${id}`, stored.key);
  return rec;
}

/** The approval request of one tool call of one step, if it was ever made (legacy records included). */
export async function findApproval(
  store: MemoryStore,
  threadId: string,
  runId: string,
  step: number,
  toolCallId: string,
): Promise<ApprovalRecord | null> {
  const rec = await getApproval(store, threadId, approvalId(runId, step, toolCallId));
  if (rec) return rec;
  const legacy = await getApproval(store, threadId, `${runId}:${toolCallId}`);
  return legacy && legacy.step === step ? legacy : null;
}

/** Every approval request of one run (not its subagents), validated, by step. */
export async function listApprovals(store: MemoryStore, threadId: string, runId: string): Promise<ApprovalRecord[]> {
  try {
    return (await approvalStoreOf(store).list(threadId, runId, "run")).map((s) => readApproval(s, "An approval record"));
  } catch (e) {
    return corrupt(e, "An approval record", `approval:${runId}:`);
  }
}

/** Every approval request of a run and of its subagent runs at any depth, validated. */
export async function listApprovalTree(store: MemoryStore, threadId: string, runId: string): Promise<ApprovalRecord[]> {
  try {
    return (await approvalStoreOf(store).list(threadId, runId, "tree")).map((s) => readApproval(s, "An approval record"));
  } catch (e) {
    return corrupt(e, "An approval record", `approval:${runId}:`);
  }
}

async function save(store: MemoryStore, rec: ApprovalRecord, expectedVersion: number | undefined): Promise<boolean> {
  const port: ApprovalStore = approvalStoreOf(store);
  const text = JSON.stringify(rec);
  return expectedVersion === undefined ? port.create(rec, text) : port.compareAndSet(rec, text, expectedVersion);
}

/** Stores a new pending approval request for a tool call (idempotent: an existing request is returned as is). */
export async function createApprovalRequest(
  store: MemoryStore,
  rec: Omit<
    ApprovalRecord,
    "schema_version" | "version" | "status" | "decisions" | "approved_args" | "decided_at_ms" | "id" | "kind" | "external"
  > & {
    kind?: ApprovalRecord["kind"];
    external?: ApprovalRecord["external"];
  },
): Promise<ApprovalRecord> {
  const full: ApprovalRecord = {
    kind: "tool",
    ...rec,
    schema_version: APPROVAL_SCHEMA_VERSION,
    version: 0,
    id: approvalId(rec.run_id, rec.step, rec.tool_call_id),
    status: "pending",
    decisions: [],
    approved_args: null,
    decided_at_ms: null,
  };
  if (!(await save(store, full, undefined))) {
    const existing = await getApproval(store, rec.thread_id, full.id);
    if (existing) return existing;
  }
  return full;
}

export type DecisionInput = {
  by: string;
  decision: "approve" | "reject" | "respond";
  /** Why (reject), or the answer the model gets instead of the tool's result (respond). */
  reason?: string | null;
  /** Edited arguments (approve only); validated against the tool's schema. */
  args?: Record<string, unknown>;
  /** A question's answer as an object of its answer schema (respond only). */
  answer?: Record<string, unknown>;
  nowMs?: number;
  /** Separation of duties: who may not decide (e.g. the run's submitter). */
  forbiddenDeciders?: string[];
  /**
   * Routing: the groups the decider belongs to, checked against the record's `groups`; null for a decider
   * not bound by routing (the console's admins).
   */
  deciderGroups?: string[] | null;
  /**
   * The hash of the arguments the reviewer saw (argsHash of approved_args ?? args). When it no longer
   * matches (another reviewer edited them meanwhile), the decision is refused as stale. A plain approve
   * without it is refused once someone has edited the arguments: it must say which arguments it approves.
   */
  expectedArgsHash?: string;
};

/** Routing: true when a decider in these groups (null: not bound by routing) may decide this request. */
export function mayDecide(rec: Pick<ApprovalRecord, "groups">, deciderGroups: readonly string[] | null): boolean {
  return deciderGroups === null || rec.groups.length === 0 || rec.groups.some((g) => deciderGroups.includes(g));
}

/** The hash a reviewer must send back with a decision: of the arguments currently up for approval. */
export const reviewedArgsHash = (rec: ApprovalRecord) => argsHash(rec.approved_args ?? rec.args);

/**
 * Records one reviewer's decision. Returns the updated record. Throws ApprovalDecisionError when the
 * approval is unknown, already decided, expired, or the edited args do not fit the tool.
 */
export async function decideApproval(
  store: MemoryStore,
  threadId: string,
  id: string,
  tool: Pick<Tool, "schema" | "asksHuman"> | undefined,
  input: DecisionInput,
): Promise<ApprovalRecord> {
  const now = input.nowMs ?? Date.now();
  for (let attempt = 0; attempt < 5; attempt++) {
    const rec = await getApproval(store, threadId, id);
    if (!rec) throw new ApprovalDecisionError("No such approval", "not_found");
    // An external interrupt is checked against its runtime's schemas, compiled only for an edit or an answer.
    const checked = (): (Pick<Tool, "asksHuman"> & { schema?: z.ZodType }) | undefined =>
      rec.external ? externalTool(rec.external) : tool;
    if (rec.status !== "pending") throw new ApprovalDecisionError(`Approval is already ${rec.status}`, "already_decided");
    if (rec.deadline_ms !== null && now > rec.deadline_ms) throw new ApprovalDecisionError("Approval deadline has passed", "expired");
    if (input.forbiddenDeciders?.includes(input.by))
      throw new ApprovalDecisionError("You may not decide an approval for a run you started", "forbidden");
    if (!mayDecide(rec, input.deciderGroups ?? null))
      throw new ApprovalDecisionError(`This approval is routed to ${rec.groups.join(", ")}; you are in none of them`, "forbidden");
    if (rec.decisions.some((d) => d.by === input.by))
      throw new ApprovalDecisionError("You already decided this approval", "already_decided");
    if (rec.external) assertOffered(rec.external, input.decision, !!input.args);
    if (input.decision === "reject" && !input.reason?.trim())
      throw new ApprovalDecisionError("A reason is required to reject", "invalid_args", "reason");
    const answer = rec.kind === "question" ? parseAnswer(rec, checked, input) : null;
    if (rec.kind !== "question" && input.answer !== undefined)
      throw new ApprovalDecisionError("Only a question takes an answer", "invalid_args", "answer");
    if (rec.kind === "llm" && input.decision === "respond")
      throw new ApprovalDecisionError("A model call is approved or rejected; nobody answers in its place", "invalid_args", "decision");
    if (rec.kind === "llm" && input.args)
      throw new ApprovalDecisionError("A model call is approved as it is; its facts are not edited", "invalid_args", "args");
    if (input.decision === "respond" && !answer && !input.reason?.trim())
      throw new ApprovalDecisionError("Write the response the model should get", "invalid_args", "reason");
    const current = reviewedArgsHash(rec);
    if (input.expectedArgsHash !== undefined && input.expectedArgsHash !== current) {
      throw new ApprovalDecisionError("The arguments changed since you looked (another reviewer edited them); review them again", "stale");
    }
    if (
      input.expectedArgsHash === undefined &&
      input.decision === "approve" &&
      !input.args &&
      rec.approved_args !== null &&
      argsHash(rec.approved_args) !== argsHash(rec.args)
    ) {
      throw new ApprovalDecisionError("Another reviewer edited the arguments; approve with their argsHash to accept the edit", "stale");
    }

    let args = rec.approved_args ?? rec.args;
    if (input.decision === "approve" && input.args) {
      // Edited arguments must fit the tool exactly: an unknown field is an error, not silently dropped. A
      // delegation's task is edited against the delegation's own schema.
      const own = rec.kind === "subagent" ? delegateTaskSchema : checked()?.schema;
      const schema = own instanceof z.ZodObject ? own.strict() : own;
      const parsed = schema?.safeParse(input.args);
      if (!parsed?.success) {
        const issue = parsed?.error.issues[0];
        // An unknown field is named by itself (its issue's path is the object's).
        const at = issue ? [...issue.path, ...(issue.code === "unrecognized_keys" ? issue.keys.slice(0, 1) : [])].join(".") : "";
        throw new ApprovalDecisionError(
          `Edited arguments are invalid: ${issue ? `${at}: ${issue.message}` : "unknown tool"}`,
          "invalid_args",
          at ? `args.${at}` : "args",
        );
      }
      args = parsed.data as Record<string, unknown>;
    }
    const decision: Decision = {
      by: input.by,
      decision: input.decision,
      reason: input.reason?.trim() || null,
      args,
      args_hash: argsHash(args),
      at_ms: now,
      answer,
    };
    const decisions = [...rec.decisions, decision];
    const next: ApprovalRecord = { ...rec, version: rec.version + 1, decisions };
    if (input.decision === "reject") {
      Object.assign(next, { status: "rejected", decided_at_ms: now });
    } else if (input.decision === "respond") {
      // One reviewer's answer settles it (no quorum: nothing runs).
      Object.assign(next, { status: "responded", decided_at_ms: now });
    } else {
      // Only approvals of the same final arguments count towards the quorum.
      const agreeing = decisions.filter((d) => d.decision === "approve" && d.args_hash === decision.args_hash).length;
      next.approved_args = args;
      if (agreeing >= rec.quorum) Object.assign(next, { status: "approved", decided_at_ms: now });
    }
    if (await save(store, next, rec.version)) return next;
  }
  throw new ApprovalDecisionError("Approval changed concurrently; try again", "already_decided");
}

// A question is answered (respond) or declined (reject), never approved; with an answer schema the answer
// is an object that fits it exactly, named field by field when it does not.
function parseAnswer(
  rec: ApprovalRecord,
  tool: () => Pick<Tool, "asksHuman"> | undefined,
  input: DecisionInput,
): Record<string, unknown> | null {
  if (input.decision === "approve")
    throw new ApprovalDecisionError("A question is answered or declined, not approved", "invalid_args", "decision");
  if (input.decision !== "respond") return null;
  const schema = tool()?.asksHuman?.answerSchema;
  if (!schema) {
    if (input.answer !== undefined) throw new ApprovalDecisionError(`${rec.tool_name} takes a text answer`, "invalid_args", "answer");
    return null;
  }
  const parsed = schema.strict().safeParse(input.answer ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue.path.join(".");
    throw new ApprovalDecisionError(
      `Answer is invalid: ${path ? `${path}: ` : ""}${issue.message}`,
      "invalid_args",
      path ? `answer.${path}` : "answer",
    );
  }
  return parsed.data as Record<string, unknown>;
}

/** A pending request closed by the system (deadline, run ended): approved as it stands, or expired. */
function systemDecided(rec: ApprovalRecord, by: string, allow: boolean, reason: string, nowMs: number): ApprovalRecord {
  return {
    ...rec,
    version: rec.version + 1,
    status: allow ? "approved" : "expired",
    approved_args: allow ? rec.args : null,
    decided_at_ms: nowMs,
    decisions: [
      ...rec.decisions,
      { by, decision: allow ? "approve" : "reject", reason, args: rec.args, args_hash: argsHash(rec.args), at_ms: nowMs, answer: null },
    ],
  };
}

/**
 * Past its deadline a pending approval takes the fallback (deny by default). `applied` says whether this
 * caller made the change (the compare-and-put lets exactly one of several concurrent sweeps win).
 */
export async function expireApproval(
  store: MemoryStore,
  rec: ApprovalRecord,
  nowMs: number,
): Promise<{ record: ApprovalRecord; applied: boolean }> {
  if (rec.status !== "pending" || rec.deadline_ms === null || nowMs <= rec.deadline_ms) return { record: rec, applied: false };
  // Nothing can answer a question in a reviewer's place: it expires whatever the fallback says.
  const allow = rec.fallback === "allow" && rec.kind !== "question";
  return closeOne(store, rec, systemDecided(rec, DEADLINE_DECIDER, allow, "Approval deadline passed", nowMs));
}

// Saves a closing of rec unless another writer changed it first: the record as it now stands.
async function closeOne(store: MemoryStore, rec: ApprovalRecord, next: ApprovalRecord) {
  if (await save(store, next, rec.version)) return { record: next, applied: true };
  return { record: (await getApproval(store, rec.thread_id, rec.id)) ?? next, applied: false };
}

/**
 * A run cancelled while requests wait closes them, its subagents' included: expired, with a system decision
 * saying why, so no inbox lists them and no decision can land on a run that will not resume. Returns how
 * many this caller closed.
 */
export async function closePendingApprovals(
  store: MemoryStore,
  threadId: string,
  runId: string,
  nowMs: number,
  reason: string,
): Promise<number> {
  let closed = 0;
  for (const rec of await listApprovalTree(store, threadId, runId)) {
    if (rec.status !== "pending") continue;
    if (await save(store, systemDecided(rec, RUN_ENDED_DECIDER, false, reason, nowMs), rec.version)) closed++;
  }
  return closed;
}

/** Closes a pending request its runtime withdrew (expired, saying why): it leaves every inbox, no decision lands. */
export async function withdrawApproval(store: MemoryStore, rec: ApprovalRecord, nowMs: number, reason: string) {
  if (rec.status !== "pending") return { record: rec, applied: false };
  return closeOne(store, rec, systemDecided(rec, WITHDRAWN_DECIDER, false, reason, nowMs));
}

/** Applies the deadline's fallback to a pending request whose deadline has passed; returns the record as it now stands. */
export async function expireIfDue(store: MemoryStore, rec: ApprovalRecord, nowMs: number): Promise<ApprovalRecord> {
  return (await expireApproval(store, rec, nowMs)).record;
}

/** The id of the newest approval request for a tool call id of a run (for the CLI and tests, which name calls by id). */
export async function approvalIdOf(store: MemoryStore, threadId: string, runId: string, toolCallId: string): Promise<string> {
  const all = (await listApprovals(store, threadId, runId)).filter((a) => a.tool_call_id === toolCallId);
  const newest = all.sort((a, b) => b.step - a.step)[0];
  if (!newest) throw new ApprovalDecisionError(`No approval for tool call ${toolCallId} of run ${runId}`, "not_found");
  return newest.id;
}
