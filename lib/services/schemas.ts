// Request bodies and query strings: every service parses its input with these (and lib/openapi.ts documents
// them). No server-only imports: the browser's forms may share them.
import { z } from "zod";
import { roleSchema, tokenRoleSchema } from "../auth/roles.ts";
import { EXTERNAL_DECISIONS } from "../runner/external.ts";
import { RUN_STATES } from "../runner/state.ts";
import { dateParam, intParam } from "../validation.ts";

// ---- Runs ----

export const startRunSchema = z.strictObject({
  agent: z.string().min(1, "Pick an agent").max(100),
  input: z.record(z.string(), z.unknown()),
});

export const decisionSchema = z
  .strictObject({
    decision: z.enum(["approve", "reject", "respond"], { message: 'decision must be "approve", "reject" or "respond"' }),
    // reject: why (the model sees it); respond: the answer the model gets instead of the tool's result.
    reason: z.string().max(2000).optional(),
    args: z.record(z.string(), z.unknown()).optional(),
    // respond on a question with an answer schema: the answer as an object of it.
    answer: z.record(z.string(), z.unknown()).optional(),
    // What the reviewer saw (the inbox and run page give it): a decision on arguments that changed since is 409.
    argsHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/, "argsHash is the sha256 hex the inbox or run page gave")
      .optional(),
  })
  .refine((d) => d.decision !== "reject" || !!d.reason?.trim(), { message: "A reason is required to reject", path: ["reason"] })
  .refine((d) => d.decision !== "respond" || !!d.reason?.trim() || d.answer !== undefined, {
    message: "Write the response the model should get",
    path: ["reason"],
  })
  .refine((d) => d.decision === "respond" || d.answer === undefined, { message: "An answer goes with respond", path: ["answer"] })
  .refine((d) => d.decision === "approve" || d.args === undefined, { message: "Arguments can only be edited on approve", path: ["args"] });

// The Idempotency-Key header of a start: any visible ASCII, as the IETF draft allows, up to 200 characters.
export const idempotencyKeySchema = z.string().regex(/^[\x21-\x7e]{1,200}$/, "Idempotency-Key must be 1-200 visible ASCII characters");

export const forkSchema = z.strictObject({ seq: z.number().int().nonnegative() });

export const runFiltersSchema = z.strictObject({
  state: z.enum(RUN_STATES).optional(),
  agent: z.string().max(100).optional(),
  submitter: z.string().max(320).optional(),
  from: dateParam.optional(),
  to: dateParam.optional(),
  q: z.string().max(200).optional(),
  cursor: z.string().max(200).optional(),
  take: intParam(1, 200).optional(),
});

export const inboxFiltersSchema = z.strictObject({
  agent: z.string().max(100).optional(),
  tool: z.string().max(100).optional(),
  /** The nextCursor of the previous page. */
  cursor: z.string().max(600).optional(),
});

export const timelineQuerySchema = z.strictObject({ cursor: z.string().max(300).optional(), take: intParam(1, 500).optional() });

export const diffQuerySchema = z.strictObject({ a: intParam(0, 1e9), b: intParam(0, 1e9) });

// ---- Users ----
// Routing groups: short lowercase names (a rule's `groups` name them), at most 20 per user.
export const groupNameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "A group name is lowercase letters, digits and dashes (at most 40)");
export const groupsSchema = z
  .array(groupNameSchema)
  .max(20, "At most 20 groups")
  .transform((g) => [...new Set(g)].sort());

/** The groups stored on a user row (a JSON array); anything unreadable counts as no group. */
export function storedGroups(text: string | null | undefined): string[] {
  try {
    const p = groupsSchema.safeParse(JSON.parse(text ?? "[]"));
    return p.success ? p.data : [];
  } catch {
    return [];
  }
}

export const newUserSchema = z.strictObject({
  email: z
    .email({ message: "Enter a valid email address" })
    .max(200)
    .transform((s) => s.toLowerCase()),
  name: z.string().trim().min(1, "Name is required").max(100),
  role: roleSchema,
  password: z.string().min(8, "At least 8 characters").max(200),
  groups: groupsSchema.optional(),
});
export type NewUser = z.infer<typeof newUserSchema>;

export const userPatchSchema = z
  .strictObject({
    role: roleSchema.optional(),
    disabled: z.boolean().optional(),
    groups: groupsSchema.optional(),
  })
  .refine((p) => p.role !== undefined || p.disabled !== undefined || p.groups !== undefined, {
    message: "Nothing to change: give role, disabled or groups",
    path: ["role"],
  });

// ---- API tokens ----

export const newTokenSchema = z
  .strictObject({
    name: z.string().trim().min(1, "Name the token").max(100),
    // runtime: an external agent runtime's token (the runtime protocol only).
    role: tokenRoleSchema,
    userId: z.string().min(1).max(100).optional(),
  })
  .refine((t) => t.role !== "runtime" || !t.userId, {
    message: "A runtime token acts as no user (each run it registers names the user it acts for)",
    path: ["userId"],
  });

// ---- The runtime protocol (v1): what an external agent runtime sends ----

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

// MCP elicitation's requested schema: a flat object of strings, numbers, integers, booleans (and enums).
const flatResponseSchema = z
  .object({
    type: z.literal("object"),
    properties: z.record(z.string(), z.object({ type: z.enum(["string", "number", "integer", "boolean"]) }).catchall(z.unknown())),
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
    state: z.enum(["running", "completed", "failed", "cancelled"]),
    error: z.string().max(4000).optional(),
  }),
]);
export type RuntimeEventInput = z.infer<typeof runtimeEventSchema>;
export const runtimeEventsSchema = z.strictObject({ events: z.array(runtimeEventSchema).min(1).max(500) });

export const decisionsQuerySchema = z.strictObject({
  /** nextCursor of an earlier answer: decisions taken after it. */
  cursor: z.string().max(400).optional(),
  /** Hold the request up to this many seconds until a decision comes (under common 60 s client timeouts). */
  wait: intParam(0, 50).optional(),
});

// ---- Audit log ----

export const auditFiltersSchema = z.strictObject({
  action: z.string().max(100).optional(),
  actor: z.string().max(320).optional(),
  targetId: z.string().max(200).optional(),
  from: dateParam.optional(),
  to: dateParam.optional(),
  cursor: z.string().max(100).optional(),
  take: intParam(1, 200).optional(),
});

// Query strings arrive as strings; empty values mean "no filter".
export function queryObject(params: URLSearchParams | Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  const entries =
    params instanceof URLSearchParams
      ? [...params.entries()]
      : Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v] as const);
  for (const [k, v] of entries) if (typeof v === "string" && v !== "") out[k] = v;
  return out;
}
