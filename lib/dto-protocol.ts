// The runtime protocol (v1) on the wire: what an external agent runtime sends and what it is answered.
// An external runtime (packages/client and its adapters) is the only caller of these shapes, and none of
// the console's own requests or responses nests them, so they live apart from lib/services/schemas.ts (the
// console's request bodies) and lib/dto.ts (its responses). The responses register in lib/dto.ts's
// apiSchemas like every other shape; lib/openapi-runtime.ts, which documents the protocol, imports this
// module, so they are in the registry whenever the OpenAPI document is built.
import { z } from "zod";
import { APPROVAL_KINDS, EXTERNAL_DECISIONS } from "./runner/index.ts";
import { groupsSchema } from "./auth/groups.ts";
import { REPORTED_STATES } from "./db/run-moves.ts";
import { externalOf, iso, named, type RunRowLike, runStateSchema } from "./dto.ts";
import { intParam } from "./validation.ts";

// ---- What a runtime sends: request bodies and the query string (lib/services/runtime-protocol.ts and
// runtime-progress.ts parse them) ----

// A runtime's own ids (run, interrupt, event, batch): visible ASCII without slashes, so they sit in a path.
const runtimeId = (what: string) =>
  z.string().regex(/^[\x21-\x2e\x30-\x7e]{1,200}$/, `${what} is 1-200 visible ASCII characters, no slash`);
const objectOf = z.record(z.string(), z.unknown());

export const runtimeRunSchema = z.strictObject({
  /** The runtime's own id of the run: registering it again returns the same run. */
  externalId: runtimeId("externalId"),
  framework: z.string().trim().min(1).max(60),
  agent: z.string().trim().min(1).max(100),
  /** The email of the user the runtime acts for: the run's submitter (they may not decide its interrupts). */
  actsFor: z
    .email()
    .max(200)
    .transform((s) => s.toLowerCase())
    .optional(),
  input: z.unknown().optional(),
  labels: z
    .record(z.string().max(60), z.string().max(200))
    .refine((l) => Object.keys(l).length <= 20, "At most 20 labels")
    .optional(),
  metadata: objectOf.optional(),
});

// MCP elicitation's requested schema: a flat object of strings, numbers, integers, booleans, single-selects
// (`enum`, with `enumNames`; or `oneOf` of titled `const`s) and multi-selects (an array whose items are
// such a choice), as the MCP specification defines it.
const titledConsts = z.array(z.object({ const: z.unknown(), title: z.string().max(200).optional() }).catchall(z.unknown())).min(1);
const choiceItems = z
  .object({ enum: z.array(z.unknown()).min(1).optional(), oneOf: titledConsts.optional(), anyOf: titledConsts.optional() })
  .catchall(z.unknown())
  .refine((i) => !!(i.enum ?? i.oneOf ?? i.anyOf), "A multi-select's items list their choices (enum, or anyOf / oneOf of const)");
const responseProperty = z.discriminatedUnion("type", [
  z.object({ type: z.enum(["string", "number", "integer", "boolean"]) }).catchall(z.unknown()),
  z.object({ type: z.literal("array"), items: choiceItems }).catchall(z.unknown()),
]);
const flatResponseSchema = z
  .object({
    type: z.literal("object"),
    properties: z.record(z.string(), responseProperty),
    required: z.array(z.string()).optional(),
  })
  .catchall(z.unknown());

export const interruptSchema = z
  .strictObject({
    /** The runtime's own id (a tool call id, an interrupt id): parking it again returns the same interrupt. */
    id: runtimeId("id"),
    kind: z.enum(["tool", "question"]).default("tool"),
    /** What the agent wants to do: a tool call (a question has none). */
    action: z
      .strictObject({ name: z.string().trim().min(1).max(200), args: objectOf.default({}), callId: z.string().max(200).optional() })
      .optional(),
    /** Why it asks (a tool call), or the question itself. */
    message: z.string().max(4000).optional(),
    /** The decisions the runtime can apply (default: approve, edit, reject for a tool; respond, reject for a question). */
    decisions: z.array(z.enum(EXTERNAL_DECISIONS)).min(1).max(4).optional(),
    argsSchema: objectOf.optional(),
    responseSchema: flatResponseSchema.optional(),
    groups: groupsSchema.optional(),
    quorum: z.number().int().min(1).max(10).default(1),
    /** Seconds until the deadline; what expiry means is onExpiry (a question always expires unanswered). */
    timeoutS: z
      .number()
      .int()
      .min(1)
      .max(365 * 86400)
      .optional(),
    onExpiry: z.enum(["deny", "allow"]).default("deny"),
    metadata: objectOf.optional(),
  })
  .refine((i) => i.kind === "question" || i.action !== undefined, { message: "A tool interrupt names its action", path: ["action"] })
  .refine((i) => i.kind === "question" || i.responseSchema === undefined, {
    message: "Only a question has a response schema",
    path: ["responseSchema"],
  })
  .refine((i) => i.kind !== "question" || !!i.message?.trim(), { message: "A question says what it asks", path: ["message"] })
  .refine((i) => i.kind !== "question" || !i.decisions?.some((d) => d === "approve" || d === "edit"), {
    message: "A question is answered (respond) or declined (reject)",
    path: ["decisions"],
  });
export type InterruptInput = z.infer<typeof interruptSchema>;

export const interruptBatchSchema = z.strictObject({
  /** The step's batch: the calls the runtime asked about together (default: this request is one batch). */
  batchId: runtimeId("batchId").optional(),
  interrupts: z.array(interruptSchema).min(1).max(100),
});

const eventId = runtimeId("id").optional();
export const runtimeEventSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("message"),
    id: eventId,
    role: z.enum(["system", "user", "assistant"]),
    content: z.string().max(100_000),
    toolCalls: z
      .array(z.strictObject({ id: z.string().min(1).max(200), name: z.string().min(1).max(200), args: objectOf.default({}) }))
      .max(100)
      .optional(),
  }),
  z.strictObject({
    type: z.literal("tool_result"),
    id: eventId,
    callId: z.string().min(1).max(200),
    name: z.string().min(1).max(200),
    output: z.unknown(),
    success: z.boolean().default(true),
    error: z.string().max(4000).optional(),
    latencyMs: z.number().nonnegative().optional(),
  }),
  z.strictObject({
    type: z.literal("phase"),
    id: eventId,
    phase: z.string().trim().min(1).max(60),
    step: z.number().int().min(0).optional(),
  }),
  // A terminal state closes whatever is still pending.
  z.strictObject({
    type: z.literal("state"),
    id: eventId,
    state: z.enum(REPORTED_STATES),
    error: z.string().max(4000).optional(),
  }),
]);
export type RuntimeEventInput = z.infer<typeof runtimeEventSchema>;
export const runtimeEventsSchema = z.strictObject({ events: z.array(runtimeEventSchema).min(1).max(500) });

/** How long a claim holds when the claimant never reports the call's result (the claim's lease). */
export const CLAIM_LEASE_S = { default: 300, max: 86_400 } as const;

export const claimSchema = z.strictObject({
  /**
   * Who claims: an id the runtime makes and keeps with its own state. The first claimant wins; it may claim
   * again (a process that died after claiming comes back with it); any other claimant is answered 409.
   */
  claimant: runtimeId("claimant"),
  /** Seconds the claim holds if its claimant never reports the call's result; then another claimant may take it. */
  leaseS: z.number().int().min(1).max(CLAIM_LEASE_S.max).default(CLAIM_LEASE_S.default),
});

export const withdrawSchema = z.strictObject({
  /** Why (audited; the runtime reads it as the interrupt's expire message). */
  reason: z.string().trim().min(1).max(2000).optional(),
});

export const decisionsQuerySchema = z.strictObject({
  /** nextCursor of an earlier answer: decisions taken after it. */
  cursor: z.string().max(400).optional(),
  /** Hold the request up to this many seconds until a decision comes (under common 60 s client timeouts). */
  wait: intParam(0, 50).optional(),
});

// ---- What a runtime is answered: response shapes, registered in apiSchemas under their names ----

export const runtimeRunDto = named(
  "RuntimeRun",
  z.object({
    id: z.string().describe("The console's run id (the run page is /runs/{id})"),
    externalId: z.string(),
    framework: z.string(),
    agent: z.string(),
    state: runStateSchema,
    actsFor: z.string().nullable(),
    labels: z.record(z.string(), z.string()),
    metadata: z.record(z.string(), z.unknown()),
    created: z.boolean().describe("false: this runtime had registered the run already (a retry or a restart)"),
  }),
);
export type RuntimeRunDto = z.infer<typeof runtimeRunDto>;
export const toRuntimeRunDto = (r: RunRowLike, created: boolean): RuntimeRunDto => {
  const ext = externalOf(r);
  return {
    id: r.id,
    externalId: ext?.externalId ?? "",
    framework: ext?.framework ?? "",
    agent: r.agentName,
    state: r.state,
    actsFor: r.submittedByEmail,
    labels: ext?.labels ?? {},
    metadata: ext?.metadata ?? {},
    created,
  };
};

export const parkedInterruptsDto = named(
  "ParkedInterrupts",
  z.object({
    runId: z.string(),
    state: runStateSchema,
    interrupts: z.array(
      z.object({
        interruptId: z.string(),
        approvalId: z.string(),
        batchId: z.string().nullable(),
        status: z.string(),
        created: z.boolean().describe("false: parked before under this id (returned as it stands)"),
      }),
    ),
  }),
);
export type ParkedInterruptsDto = z.infer<typeof parkedInterruptsDto>;

export const RUNTIME_DECISION_TYPES = ["approve", "edit", "reject", "respond", "expire"] as const;
export const runtimeDecisionDto = named(
  "RuntimeDecision",
  z.object({
    approvalId: z.string(),
    interruptId: z.string(),
    batchId: z.string().nullable(),
    kind: z.enum(APPROVAL_KINDS),
    decision: z
      .enum(RUNTIME_DECISION_TYPES)
      .describe("edit: approved with edited arguments (args); expire: nobody decided in time or the run ended"),
    args: z.record(z.string(), z.unknown()).nullable().describe("approve and edit: exactly the arguments to execute"),
    message: z.string().nullable().describe("reject: why; respond: the answer in the tool's place; expire: why"),
    answer: z.record(z.string(), z.unknown()).nullable().describe("respond on a question with a response schema"),
    decidedBy: z.array(z.string()),
    decidedAt: iso,
    claimedAt: iso.nullable(),
    claimant: z.string().nullable().describe("The claimant holding the claim (the id its claim named); null: not claimed"),
    leaseUntil: iso
      .nullable()
      .describe("Until when the claim holds unless its call's result is reported; then another claimant may take it"),
    cursor: z.string().describe("The position after this decision (a later ?cursor= starts after it)"),
  }),
);
export type RuntimeDecisionDto = z.infer<typeof runtimeDecisionDto>;

export const runtimeDecisionsDto = named(
  "RuntimeDecisions",
  z.object({
    runId: z.string(),
    state: runStateSchema,
    pending: z.number().int().describe("Interrupts still waiting for a decision"),
    decisions: z.array(runtimeDecisionDto),
    nextCursor: z.string().nullable().describe("Where the next call starts (the cursor sent, when nothing was decided since)"),
  }),
);
export type RuntimeDecisionsDto = z.infer<typeof runtimeDecisionsDto>;

export const claimedDecisionDto = named("ClaimedDecision", z.object({ decision: runtimeDecisionDto }));

/** An interrupt as it was parked (a withdrawal's answer; the current state of a re-park asking something else). */
export const storedInterruptDto = named(
  "StoredInterrupt",
  z.object({
    interruptId: z.string(),
    approvalId: z.string(),
    batchId: z.string().nullable(),
    kind: z.enum(APPROVAL_KINDS),
    status: z.string(),
    action: z.object({ name: z.string(), args: z.record(z.string(), z.unknown()) }),
    message: z.string(),
  }),
);

export const withdrawnInterruptDto = named(
  "WithdrawnInterrupt",
  z.object({
    withdrawn: z.boolean().describe("false: it was decided or closed already (interrupt says how)"),
    interrupt: storedInterruptDto,
  }),
);

export const runtimeReportDto = named(
  "RuntimeReport",
  z.object({
    runId: z.string(),
    state: runStateSchema,
    accepted: z.number().int().describe("Events recorded (a retried event with the same id is recorded once)"),
    closed: z.number().int().describe("Pending interrupts a terminal state closed (expired)"),
  }),
);
