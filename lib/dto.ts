// Response shapes: what the API answers and what pages hand to client components. Every shape is a zod
// schema registered under a name in `apiSchemas` (lib/openapi.ts documents every response from them, and
// an e2e test validates live responses against that document); every mapper takes a database row and
// returns plain JSON: ISO dates, plain numbers, no lease internals, no raw Prisma rows.
// A raw Run row cannot be serialized at all (its lease deadline is a BigInt), which is why nothing else
// may put one into a response.
// Why this is one file (over 400 lines): the console's shapes nest (a run page holds runs, approvals,
// messages and errors) and are registered in one registry; split by page, each part would import the others
// and the one owner of response shapes would become five. The runtime protocol's shapes nest with none of
// them and are answered to another caller (an external runtime): they are in lib/dto-protocol.ts.
import { z } from "zod";
import type { Run } from "./db/runs.ts";
import { storedGroups } from "./auth/groups.ts";
import type { ArgChange, ErrorBody } from "./dto-shared.ts";
import { APPROVAL_KINDS, RUN_STATES, approvalRecordSchema, deepFreeze, messageSchema, toolExecutionSchema } from "./runner/index.ts";

/** Every response shape by the name the OpenAPI document gives it. */
export const apiSchemas = z.registry<{ id: string }>();
/** Registers a shape under the name the OpenAPI document gives it (lib/dto-protocol.ts registers its own too). */
export const named = <T extends z.ZodType>(id: string, schema: T): T => {
  apiSchemas.add(schema, { id });
  return schema;
};

export const iso = z.string().describe("ISO 8601 time");
/** A run's state, one of the runner's (lib/runner/run-states.ts): every shape that has one says which. */
export const runStateSchema = named("RunState", z.enum(RUN_STATES));
const isoOrNull = iso.nullable();
const toIso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export const runDto = named(
  "Run",
  z.object({
    id: z.string(),
    threadId: z.string(),
    agentName: z.string(),
    state: runStateSchema,
    step: z.number().int(),
    phase: z.string().nullable(),
    input: z.unknown(),
    submittedById: z.string().nullable(),
    submittedByEmail: z.string().nullable(),
    model: z.string().nullable(),
    totalTokens: z.number().int(),
    costUsd: z.number(),
    forkedFromRunId: z.string().nullable(),
    forkedFromSeq: z.number().int().nullable(),
    cancelRequested: z.boolean(),
    // Set when a reader found one of the run's records unreadable: the key of that record.
    corruptKey: z.string().nullable(),
    prunedAt: isoOrNull,
    prunedCheckpoints: z.number().int(),
    error: z.string().nullable(),
    // An external run (registered by a runtime through the runtime protocol; its runtime executes it).
    external: z
      .object({
        framework: z.string(),
        externalId: z.string(),
        labels: z.record(z.string(), z.string()),
        metadata: z.record(z.string(), z.unknown()),
      })
      .nullable(),
    createdAt: iso,
    updatedAt: iso,
    finishedAt: isoOrNull,
  }),
);
export type RunDto = z.infer<typeof runDto>;

// The Run row as Prisma returns it; the mappers below read it and never pass it on.
export type RunRowLike = Omit<Run, "leaseOwner" | "leaseUntilMs" | "leaseEpoch" | "idempotencyKey">;

function parseObject<T>(text: string | null): Record<string, T> {
  try {
    const v: unknown = JSON.parse(text ?? "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, T>) : {};
  } catch {
    return {};
  }
}

export const externalOf = (r: RunRowLike): RunDto["external"] =>
  r.runtimeTokenId && r.externalId
    ? {
        framework: r.framework ?? "",
        externalId: r.externalId,
        labels: parseObject<string>(r.labels),
        metadata: parseObject<unknown>(r.metadata),
      }
    : null;

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { unreadable: text.slice(0, 200) };
  }
}

export function toRunDto(r: RunRowLike, opts: { withInput?: boolean } = {}): RunDto {
  return {
    id: r.id,
    threadId: r.threadId,
    agentName: r.agentName,
    state: r.state,
    step: r.step,
    phase: r.phase,
    input: opts.withInput === false ? null : parseInput(r.input),
    submittedById: r.submittedById,
    submittedByEmail: r.submittedByEmail,
    model: r.model,
    totalTokens: r.totalTokens,
    costUsd: r.costUsd,
    forkedFromRunId: r.forkedFromRunId,
    forkedFromSeq: r.forkedFromSeq,
    cancelRequested: r.cancelRequested,
    corruptKey: r.corruptKey,
    prunedAt: toIso(r.prunedAt),
    prunedCheckpoints: r.prunedCheckpoints,
    error: r.error,
    external: externalOf(r),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    finishedAt: toIso(r.finishedAt),
  };
}

export const runListDto = named(
  "RunList",
  z.object({
    runs: z.array(
      runDto.extend({
        ready: z.boolean().describe("Paused with every request decided: its agent waits for someone to press Resume"),
        about: z
          .string()
          .nullable()
          .describe('The run\'s input in a line, its values formatted ("ORD-1001 · €90.00 · Damaged"); null without one'),
      }),
    ),
    nextCursor: z.string().nullable(),
  }),
);
/** about: a row's input in a line (the list leaves the input itself out). */
export const toRunListDto = (
  p: { runs: (RunRowLike & { ready: boolean })[]; nextCursor: string | null },
  about: (r: RunRowLike, input: unknown) => string | null = () => null,
) => ({
  runs: p.runs.map((r) => ({ ...toRunDto(r, { withInput: false }), ready: r.ready, about: about(r, parseInput(r.input)) })),
  nextCursor: p.nextCursor,
});

export const deliveryDto = named(
  "WebhookDelivery",
  z.object({
    id: z.string(),
    event: z.string(),
    url: z.string(),
    status: z.string(),
    attempts: z.number().int(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: iso,
    deliveredAt: isoOrNull,
  }),
);
export type DeliveryDto = z.infer<typeof deliveryDto>;
export const toDeliveryDto = (d: {
  id: string;
  event: string;
  url: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}): DeliveryDto => ({
  id: d.id,
  event: d.event,
  url: d.url,
  status: d.status,
  attempts: d.attempts,
  lastStatus: d.lastStatus,
  lastError: d.lastError,
  createdAt: d.createdAt.toISOString(),
  deliveredAt: toIso(d.deliveredAt),
});

export const corruptionDto = named(
  "Corruption",
  z.object({
    error: z.literal("AgentCheckpointCorruptionError"),
    message: z.string(),
    key: z.string().nullable(),
  }),
);
export type CorruptionDto = z.infer<typeof corruptionDto>;

export const inboxItemDto = named(
  "InboxItem",
  z.object({
    id: z.string(),
    runId: z.string(),
    subRunId: z.string().nullable(),
    agent: z.string(),
    rootAgent: z.string(),
    /** The run this request's run was forked from: its effects may already have happened there. */
    forkedFrom: z.string().nullable().default(null),
    /** What Approve asks to confirm first (a rule's confirmAbove); null: one tap approves. */
    confirm: z.string().nullable().default(null),
    tool: z.string(),
    // tool: a tool call waits; question: the model asked a reviewer (summary is the question); llm: the
    // model call of a step waits (summary: the model and the run's use so far); subagent: a delegation.
    kind: z.enum(APPROVAL_KINDS),
    summary: z.string(),
    reason: z.string(),
    requestedBy: z.string().nullable(),
    requestedAtMs: z.number().int(),
    deadlineMs: z.number().int().nullable(),
    quorum: z.number().int(),
    // Routing: the groups whose members may decide (empty: any reviewer), and whether this reviewer may.
    groups: z.array(z.string()),
    canDecide: z.boolean(),
    approvals: z.number().int(),
    decidedByMe: z.boolean(),
    // The reviewer must see this to decide: the stored arguments hash and record version they saw.
    argsHash: z.string(),
    version: z.number().int(),
  }),
);
export type InboxItemDto = z.infer<typeof inboxItemDto>;
/** An inbox row as the inbox page carries it (app/approvals/first-screen.ts): what the row shows and what
 * deciding it sends. The policy's reason and the record's version are the API's only: the page's data is
 * hydrated from, once per row of its first screen. */
export type InboxRowDto = Omit<InboxItemDto, "reason" | "version">;

// An approval record that could not be read: listed (so nobody wonders where it went), never decidable.
export const inboxCorruptDto = named(
  "UnreadableRecord",
  z.object({
    key: z.string(),
    runId: z.string().nullable(),
    error: z.literal("AgentCheckpointCorruptionError"),
    message: z.string(),
  }),
);
export type InboxCorruptDto = z.infer<typeof inboxCorruptDto>;

export const inboxDto = named(
  "Inbox",
  z.object({
    approvals: z.array(inboxItemDto),
    corrupt: z.array(inboxCorruptDto),
    // The next page's cursor (`?cursor=`), null on the last page.
    nextCursor: z.string().nullable(),
    // The server's clock when the answer was built: "waiting for" is computed from it, so the server's
    // HTML and the browser's first render agree (no hydration mismatch) and refreshes move it on.
    asOfMs: z.number().int(),
  }),
);
export type InboxDto = z.infer<typeof inboxDto>;
/** The inbox page's first screen (lib/services/inbox.ts inboxFirstScreen, app/approvals/first-screen.ts): the
 * first page's rows as the list orders them, as many as a screen shows; `firstScreenOf` is set while it holds
 * only those, of that many approvals (the browser then loads the whole page once hydrated). Its `corrupt`
 * are the unreadable records among the rows it read. */
export type InboxFirstScreenDto = Omit<InboxDto, "approvals"> & { approvals: InboxRowDto[]; firstScreenOf?: number };

export const timelineRunDto = named(
  "TimelineRun",
  z.object({
    id: z.string(),
    agentName: z.string(),
    state: runStateSchema,
    prunedAt: isoOrNull,
    prunedCheckpoints: z.number().int(),
    // An external run's framework: its timeline is what its runtime reported, with no checkpoint to fork from.
    framework: z.string().nullable(),
  }),
);
export const toTimelineRunDto = (r: RunRowLike) => ({
  id: r.id,
  agentName: r.agentName,
  state: r.state,
  prunedAt: toIso(r.prunedAt),
  prunedCheckpoints: r.prunedCheckpoints,
  framework: r.runtimeTokenId ? r.framework : null,
});

// ---- JSON Schema (the forms' input) ----

// A JSON Schema as the console's forms read it (components/schema-form.tsx): the keywords they use are
// spelled out, any other keyword is kept as it is (the API returns the whole schema).
export type JsonSchemaDto = {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  pattern?: string;
  properties?: Record<string, JsonSchemaDto>;
  required?: string[];
  items?: JsonSchemaDto | boolean;
  [keyword: string]: unknown;
};
export const jsonSchemaDto: z.ZodType<JsonSchemaDto> = named(
  "JsonSchema",
  z
    .object({
      type: z.union([z.string(), z.array(z.string())]).optional(),
      description: z.string().optional(),
      enum: z.array(z.unknown()).optional(),
      default: z.unknown().optional(),
      minimum: z.number().optional(),
      maximum: z.number().optional(),
      maxLength: z.number().optional(),
      pattern: z.string().optional(),
      properties: z
        .record(
          z.string(),
          z.lazy(() => jsonSchemaDto),
        )
        .optional(),
      required: z.array(z.string()).optional(),
      items: z.union([z.lazy(() => jsonSchemaDto), z.boolean()]).optional(),
    })
    .catchall(z.unknown()),
);

/**
 * The JSON Schema of a zod schema as a plain object. z.toJSONSchema's result is not one: zod defines a
 * non-enumerable `~standard` property on it (the Standard Schema interface, whose values are functions),
 * and React in development refuses any object with a non-enumerable own property ("Only plain objects can
 * be passed to Client Components from Server Components"). Parsing it through jsonSchemaDto builds new
 * plain objects of its enumerable keywords only.
 */
export function toJsonSchemaDto(schema: z.ZodType): JsonSchemaDto {
  // A schema (a tool's, an agent's input) lives as long as the process and is never changed, and building
  // its JSON Schema cost a run page and the start form more than reading their data: each is built once,
  // frozen so that no reader changes what the next one gets.
  let dto = jsonSchemas.get(schema);
  if (!dto) {
    dto = deepFreeze(jsonSchemaDto.parse(z.toJSONSchema(schema)));
    jsonSchemas.set(schema, dto);
  }
  return dto;
}
const jsonSchemas = new WeakMap<z.ZodType, JsonSchemaDto>();

// ---- Run page ----

export const argChangeDto = z.object({ field: z.string(), before: z.unknown(), after: z.unknown() }) satisfies z.ZodType<ArgChange>;
export { type ArgChange, argChanges, conversationOfRun, type ErrorBody, errorText } from "./dto-shared.ts";

// An approval as a reviewer sees it: the stored record plus what changed, the arguments' JSON schema
// (for the edit form) and the hash a decision sends back.
// Not a component of its own: the document names the run page's RunApproval, which extends it.
export const approvalViewDto = approvalRecordSchema.extend({
  changes: z.array(argChangeDto),
  argsSchema: jsonSchemaDto.nullable(),
  argsHash: z.string(),
  // A question's answer form (JSON schema of its answer object); null for a text answer or a tool call.
  answerSchema: jsonSchemaDto.nullable(),
  // The MCP server and its own name for the tool, when the tool is an MCP server's
  mcp: z.object({ server: z.string(), tool: z.string() }).nullable(),
});
// ---- Hand-offs: a request's reassignment and comments (lib/services/handoffs.ts) ----

export const assignmentDto = named(
  "Assignment",
  z.object({
    to: z.string().describe("The reviewer's email or the routing group it was reassigned to"),
    toKind: z.enum(["person", "group"]),
    by: z.string(),
    reason: z.string().nullable(),
    atMs: z.number().int(),
  }),
);
export const commentDto = named(
  "Comment",
  z.object({ seq: z.number().int(), by: z.string(), byName: z.string().nullable(), text: z.string(), atMs: z.number().int() }),
);
export const commentsDto = named("Comments", z.object({ comments: z.array(commentDto) }));
export const commentResultDto = named("CommentResult", z.object({ comment: commentDto }));
export const reassignResultDto = named("ReassignResult", z.object({ assignment: assignmentDto }));
// What a request's card shows of them (each run page approval carries it).
export const handoffsDto = z.object({
  assignment: assignmentDto.nullable(),
  comments: z.array(commentDto),
  canReassign: z.boolean(),
  canComment: z.boolean(),
});
export type AssignmentDto = z.infer<typeof assignmentDto>;
export type CommentDto = z.infer<typeof commentDto>;
export type HandoffsDto = z.infer<typeof handoffsDto>;

// On the run page each approval also says whether routing lets this reader decide it, and its hand-offs.
// confirm: what Approve asks to confirm first (a rule's confirmAbove); null: one tap approves.
export const runApprovalDto = named(
  "RunApproval",
  approvalViewDto.extend({ canDecide: z.boolean(), confirm: z.string().nullable().default(null), handoffs: handoffsDto }),
);
export type RunApproval = z.infer<typeof runApprovalDto>;
export type ApprovalView = z.infer<typeof approvalViewDto>;

// The conversation rebuilt from the latest runtime snapshot; subagent conversations under the tool call
// that delegated to them.
export const conversationDto = named(
  "Conversation",
  z.object({
    runId: z.string(),
    agent: z.string(),
    state: runStateSchema,
    messages: z.array(messageSchema),
    toolExecutions: z.array(toolExecutionSchema),
    get children(): z.ZodRecord<z.ZodString, typeof conversationDto> {
      return z.record(z.string(), conversationDto);
    },
  }),
);
export type ConversationView = z.infer<typeof conversationDto>;

export const runViewDto = named(
  "RunView",
  z.object({
    run: runDto,
    corruption: corruptionDto.nullable(),
    conversation: conversationDto.nullable(),
    approvals: z.array(runApprovalDto),
    checkpointCount: z.number().int(),
    canResume: z.boolean(),
    // An external run's runtime resumes it by claiming the decisions: how many it has not picked up yet, and
    // how many it claimed and never reported on within the claim's lease.
    runtimePickup: z.object({ waiting: z.number().int(), overdue: z.number().int() }).nullable(),
    permissions: z.object({ decide: z.boolean(), operate: z.boolean() }),
    selfApprovalForbidden: z.boolean(),
    deliveries: z.array(deliveryDto),
    cancelledBy: z.string().nullable().describe("Who cancelled the run (its audit entry's actor), when it was cancelled by someone"),
    asOfMs: z.number().int(),
  }),
);
export type RunView = z.infer<typeof runViewDto>;

// What the run page's components read of a run view: the page's HTML carries only this (app/runs/[runId]/page-view.ts),
// the live refresh the whole RunView (a superset). Left out: the record's bookkeeping (ids, hashes, the
// schema version, routing, request time) and each conversation's tool executions (every result is in its
// tool message already).
export type ShownApproval = Omit<
  RunApproval,
  | "schema_version"
  | "version"
  | "root_run_id"
  | "thread_id"
  | "input_hash"
  | "requested_at_ms"
  | "rule_id"
  | "agent_path"
  | "agent_name"
  | "requested_by"
>;
export type ShownConversation = Omit<ConversationView, "toolExecutions" | "children"> & {
  children: Record<string, ShownConversation>;
};
export type ShownRun = Omit<
  RunView["run"],
  "threadId" | "submittedById" | "cancelRequested" | "corruptKey" | "prunedAt" | "prunedCheckpoints" | "external" | "updatedAt"
>;
export type RunPageView = Omit<RunView, "run" | "conversation" | "approvals"> & {
  run: ShownRun;
  conversation: ShownConversation | null;
  approvals: ShownApproval[];
};

// ---- The inbox's preview pane ----

// One message of the conversation that led to a request, as text: the model's and the tools' words are
// untrusted, cut to a length (`cut`: it was longer).
export const previewMessageDto = z.object({
  role: z.enum(["user", "assistant", "tool"]),
  name: z.string().nullable(),
  text: z.string(),
  cut: z.boolean(),
});
export type PreviewMessage = z.infer<typeof previewMessageDto>;

// A request as the inbox's preview pane shows it (lib/services/preview.ts): the approval as the run page
// has it, the run it belongs to, the conversation's last messages up to the call, the earlier calls'
// results as fields and where the request exceeds them.
export const approvalPreviewDto = named(
  "ApprovalPreview",
  z.object({
    schemaVersion: z.literal(1),
    approval: runApprovalDto,
    run: z.object({ id: z.string(), agentName: z.string(), state: z.string(), submittedByEmail: z.string().nullable() }),
    selfApprovalForbidden: z.boolean(),
    excerpt: z.array(previewMessageDto),
    related: z.array(
      z.object({
        tool: z.string(),
        callId: z.string(),
        fields: z.array(z.object({ key: z.string(), label: z.string(), text: z.string() })),
      }),
    ),
    checks: z.array(z.object({ field: z.string(), message: z.string() })),
    asOfMs: z.number().int(),
  }),
);
export type ApprovalPreviewDto = z.infer<typeof approvalPreviewDto>;

// ---- Actions ----

export const startedDto = named("RunStarted", z.object({ id: z.string(), replayed: z.boolean() }));
export const approvalDto = named("Approval", approvalRecordSchema);
export const decisionResultDto = named("DecisionResult", z.object({ approval: approvalDto, resumed: z.boolean() }));
export const resumedDto = named("RunResumed", z.object({ id: z.string(), resumed: z.literal(true) }));
export const cancellingDto = named("RunCancelling", z.object({ id: z.string(), cancelling: z.literal(true) }));
export const retryingDto = named("RunRetrying", z.object({ id: z.string(), retrying: z.literal(true) }));
export const forkedDto = named(
  "RunForked",
  z.object({ id: z.string(), forkedFrom: z.object({ runId: z.string(), seq: z.number().int() }) }),
);
export const forkPreviewDto = named(
  "ForkPreview",
  z.object({
    runId: z.string(),
    seq: z.number().int(),
    /** Tool calls that succeeded in the source after the fork point: each runs again in the fork once approved. */
    repeats: z.array(z.object({ tool: z.string(), toolCallId: z.string(), summary: z.string() })),
  }),
);
export const savedViewDto = named(
  "SavedView",
  z.object({
    id: z.string(),
    name: z.string(),
    scope: z.enum(["approvals", "runs"]),
    filters: z.record(z.string(), z.string()),
    /** The page the view opens: the inbox or the runs list with its filters. */
    href: z.string(),
    /** What it matches now: pending approvals (the inbox's first page) or runs, counted up to `more`. */
    count: z.number().int(),
    more: z.boolean(),
  }),
);
export type SavedViewDto = z.infer<typeof savedViewDto>;
export const savedViewsDto = named("SavedViews", z.object({ views: z.array(savedViewDto) }));
export const viewDeletedDto = named("ViewDeleted", z.object({ id: z.string(), deleted: z.literal(true) }));
export const pendingCountDto = named("PendingCount", z.object({ pending: z.number().int() }));

// ---- Agents ----

export const agentsDto = named(
  "Agents",
  z.object({
    agents: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        model: z.string(),
        inputSchema: jsonSchemaDto,
        // null when runs can start; otherwise why not (its model provider is not configured here)
        unavailable: z.string().nullable(),
      }),
    ),
  }),
);

export type AgentsDto = z.infer<typeof agentsDto>;

// ---- Timeline ----

export const checkpointDto = z.object({
  schema_version: z.string(),
  run_id: z.string(),
  thread_id: z.string(),
  step: z.number().int(),
  phase: z.string(),
  timestamp_ms: z.number().int(),
  seq: z.number().int(),
  payload: z.record(z.string(), z.unknown()),
});

export const timelinePageDto = named(
  "TimelinePage",
  z.object({
    run: timelineRunDto,
    checkpoints: z.array(checkpointDto),
    corrupt: z.array(z.object({ key: z.string(), runId: z.string().nullable(), message: z.string() })),
    nextCursor: z.string().nullable(),
    prevTimestampMs: z.number().int().nullable(),
  }),
);

export const snapshotSummaryDto = z.object({
  seq: z.number().int(),
  phase: z.string(),
  step: z.number().int(),
  timestampMs: z.number().int(),
  state: runStateSchema.nullable(),
  messageCount: z.number().int().nullable(),
  llmCalls: z.number().int().nullable(),
  toolCalls: z.number().int().nullable(),
  totalTokens: z.number().int().nullable(),
  costUsd: z.number().nullable(),
  pending: z.object({ text: z.string(), toolCalls: z.array(z.string()) }).nullable(),
  snapshotFromSeq: z.number().int().nullable(),
});
export type SnapshotSummary = z.infer<typeof snapshotSummaryDto>;

export const diffDto = named(
  "CheckpointDiff",
  z.object({
    from: snapshotSummaryDto,
    to: snapshotSummaryDto,
    messagesAdded: z.array(messageSchema),
    payloadKeys: z.object({ from: z.array(z.string()), to: z.array(z.string()) }),
  }),
);
export type DiffDto = z.infer<typeof diffDto>;

// ---- Audit ----

export const auditEventDto = z.object({
  id: z.string(),
  at: iso,
  actorId: z.string().nullable(),
  actorEmail: z.string().nullable(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  targetName: z
    .string()
    .nullable()
    .describe("The target as people name it (a run by its agent, a user by email, a token by name); null once it is gone"),
  data: z.unknown(),
});
export type AuditEventDto = z.infer<typeof auditEventDto>;
export const auditPageDto = named("AuditPage", z.object({ events: z.array(auditEventDto), nextCursor: z.string().nullable() }));
export type AuditPageDto = z.infer<typeof auditPageDto>;

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const toAuditEventDto = (
  e: {
    id: string;
    at: Date;
    actorId: string | null;
    actorEmail: string | null;
    action: string;
    targetType: string;
    targetId: string;
    data: string;
  },
  targetName: string | null,
): AuditEventDto => ({
  id: e.id,
  at: e.at.toISOString(),
  actorId: e.actorId,
  actorEmail: e.actorEmail,
  action: e.action,
  targetType: e.targetType,
  targetId: e.targetId,
  targetName,
  data: parseJsonText(e.data),
});

// ---- Users and tokens ----

export const userDto = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.string(),
  disabled: z.boolean(),
  /** Routing groups: which routed approvals the user may decide. */
  groups: z.array(z.string()),
  createdAt: iso,
  /** Who disabled a disabled user: idp (refused at an SSO sign-in), scim, scim-deleted; null: an admin. */
  disabledReason: z.enum(["idp", "scim", "scim-deleted"]).nullable(),
  disabledAt: isoOrNull,
  /** Linked to an IdP account (signs in through single sign-on). */
  linked: z.boolean(),
  hasPassword: z.boolean(),
  /** A linked account's local password works only while this is on. */
  passwordKept: z.boolean(),
});
export type UserDto = z.infer<typeof userDto>;
const disabledReasons = ["idp", "scim", "scim-deleted"] as const;
export const toUserDto = (u: {
  id: string;
  email: string;
  name: string;
  role: string;
  disabled: boolean;
  groups: string;
  createdAt: Date;
  disabledReason: string | null;
  disabledAt: Date | null;
  ssoSubject: string | null;
  passwordHash: string;
  passwordKept: boolean;
}): UserDto => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  disabled: u.disabled,
  groups: storedGroups(u.groups),
  createdAt: u.createdAt.toISOString(),
  disabledReason: u.disabled ? (disabledReasons.find((r) => r === u.disabledReason) ?? null) : null,
  disabledAt: u.disabled ? toIso(u.disabledAt) : null,
  linked: u.ssoSubject !== null,
  hasPassword: u.passwordHash !== "",
  passwordKept: u.passwordKept,
});
export const usersDto = named("Users", z.object({ users: z.array(userDto) }));
export const userResultDto = named("UserResult", z.object({ user: userDto }));

export const tokenDto = z.object({
  id: z.string(),
  name: z.string(),
  role: z.string(),
  userId: z.string().nullable(),
  prefix: z.string(),
  createdAt: iso,
  revokedAt: isoOrNull,
  lastUsedAt: isoOrNull,
});
export type TokenView = z.infer<typeof tokenDto>;
export const toTokenDto = (t: {
  id: string;
  name: string;
  role: string;
  userId: string | null;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}): TokenView => ({
  id: t.id,
  name: t.name,
  role: t.role,
  userId: t.userId,
  prefix: t.prefix,
  createdAt: t.createdAt.toISOString(),
  revokedAt: toIso(t.revokedAt),
  lastUsedAt: toIso(t.lastUsedAt),
});
export const tokensDto = named("Tokens", z.object({ tokens: z.array(tokenDto) }));
// The only time the secret is shown.
export const createdTokenDto = named("CreatedToken", tokenDto.extend({ token: z.string() }));
export const revokedTokenDto = named("RevokedToken", z.object({ token: tokenDto }));

// ---- Health and errors ----

export const healthDto = named(
  "Health",
  z.union([
    z.object({
      ok: z.literal(true),
      database: z.enum(["sqlite", "postgresql"]),
      databaseLatencyMs: z.number(),
      queue: z.object({ pending: z.number().int(), running: z.number().int(), paused: z.number().int() }),
      instance: z.object({ activeRuns: z.number().int(), lastSweepAt: z.number().int().nullable(), pid: z.number().int() }),
    }),
    z.object({ ok: z.literal(false), database: z.enum(["sqlite", "postgresql"]), error: z.string() }),
  ]),
);

// The probes (lib/ops/probes.ts): liveness checks nothing but the process; readiness says what is not ready.
export const livenessDto = named("Liveness", z.object({ ok: z.literal(true), pid: z.number().int(), uptimeS: z.number().int() }));
export const readinessDto = named(
  "Readiness",
  z.object({
    ready: z.boolean(),
    draining: z.boolean().describe("From SIGTERM on: the process finishes or hands back its runs and takes no new work"),
    database: z.object({ ok: z.boolean(), latencyMs: z.number().nullable(), error: z.string().optional() }),
    migrations: z.object({
      ok: z.boolean(),
      pending: z.array(z.string()).describe("Migrations of this build the database has not applied"),
      error: z.string().optional(),
    }),
  }),
);
export type Liveness = z.infer<typeof livenessDto>;
export type Readiness = z.infer<typeof readinessDto>;

// Slack's interactivity endpoint (lib/notify/slack): an empty 200 acknowledges a button; the reject modal's
// submission is answered with what Slack does next (close it, or show the error under the reason).
export const slackInteractionAnswerDto = named(
  "SlackInteractionAnswer",
  z.object({ response_action: z.enum(["clear", "errors"]).optional(), errors: z.record(z.string(), z.string()).optional() }),
);

// Every 4xx: `error` names the kind, `field` the request field that is wrong (400), `key` the unreadable
// record (409 AgentCheckpointCorruptionError), `current` the approval's state (409 on a stale decision).
export const errorDto = named(
  "Error",
  z.object({
    error: z.string(),
    field: z.string().optional(),
    message: z.string().optional(),
    key: z.string().nullable().optional(),
    current: z.unknown().optional(),
  }) satisfies z.ZodType<ErrorBody>,
);

// ---- Hand-offs: a request reassigned, its comments, a reviewer's deputy ----

export const toAssignmentDto = (a: {
  toEmail: string | null;
  toGroup: string | null;
  byEmail: string;
  reason: string | null;
  createdAt: Date;
}): AssignmentDto => ({
  to: a.toEmail ?? a.toGroup ?? "",
  toKind: a.toEmail ? "person" : "group",
  by: a.byEmail,
  reason: a.reason,
  atMs: a.createdAt.getTime(),
});
export const toCommentDto = (c: {
  seq: number;
  authorEmail: string;
  authorName: string | null;
  text: string;
  createdAt: Date;
}): CommentDto => ({
  seq: c.seq,
  by: c.authorEmail,
  byName: c.authorName,
  text: c.text,
  atMs: c.createdAt.getTime(),
});

// The Settings page's (server actions only, like handoffsDto).
export const delegationDto = z.object({
  deputy: z.string(),
  startsAtMs: z.number().int(),
  endsAtMs: z.number().int(),
  active: z.boolean(),
});
export type DelegationDto = z.infer<typeof delegationDto>;
