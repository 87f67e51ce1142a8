// Request bodies and query strings: every service parses its input with these (and lib/openapi.ts documents
// them); the runtime protocol's are in lib/dto-protocol.ts. No server-only imports: the browser's forms may
// share them.
import { z } from "zod";
import { roleSchema, tokenRoleSchema } from "../auth/roles.ts";
import { RUN_STATES } from "../runner/run-states.ts";
import { groupNameSchema, groupsSchema } from "../auth/groups.ts";
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
export const forkPreviewQuerySchema = z.strictObject({ seq: intParam(0, 1e9) });

export const runFiltersSchema = z.strictObject({
  // "ready": paused with every request decided, waiting for someone to press Resume.
  state: z.enum([...RUN_STATES, "ready"]).optional(),
  agent: z.string().max(100).optional(),
  /** An external runtime's framework (as it registered its runs). */
  framework: z.string().max(60).optional(),
  submitter: z.string().max(320).optional(),
  from: dateParam.optional(),
  to: dateParam.optional(),
  q: z.string().max(200).optional(),
  cursor: z.string().max(200).optional(),
  take: intParam(1, 200).optional(),
});

export const inboxFiltersSchema = z.strictObject({
  agent: z.string().max(100).optional(),
  /** Only the interrupts of external runtimes of this framework. */
  framework: z.string().max(60).optional(),
  tool: z.string().max(100).optional(),
  /** Search: a run id prefix, or text in the tool, agent or arguments ("ORD-1001", a customer's email). */
  q: z.string().trim().min(1).max(200).optional(),
  /** Only the approvals routed to this group. */
  group: z.string().max(60).optional(),
  /** The nextCursor of the previous page. */
  cursor: z.string().max(600).optional(),
});

export const timelineQuerySchema = z.strictObject({ cursor: z.string().max(300).optional(), take: intParam(1, 500).optional() });

export const diffQuerySchema = z.strictObject({ a: intParam(0, 1e9), b: intParam(0, 1e9) });

// ---- Users ----

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
    // A linked account's local password keeps working (off: only the IdP signs them in).
    passwordKept: z.boolean().optional(),
  })
  .refine((p) => p.role !== undefined || p.disabled !== undefined || p.groups !== undefined || p.passwordKept !== undefined, {
    message: "Nothing to change: give role, disabled, groups or passwordKept",
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
  })
  .refine((t) => t.role !== "scim" || !t.userId, { message: "A SCIM token acts as no user (it is the IdP's)", path: ["userId"] });

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

/** A saved view's filters: the inbox's or the runs list's, as their URLs give them (no cursor, no page size). */
export const viewFilterSchemas = {
  approvals: inboxFiltersSchema.omit({ cursor: true }),
  runs: runFiltersSchema.omit({ cursor: true, take: true }),
} as const;

export const newSavedViewSchema = z.strictObject({
  name: z.string().trim().min(1, "Name the view").max(60, "At most 60 characters"),
  scope: z.enum(["approvals", "runs"]),
  filters: z.record(z.string().max(60), z.string().max(320)).default({}),
});

// Hand-offs (lib/services/handoffs.ts): a pending request reassigned to one person or one routing group, a
// comment on a request, a reviewer's deputy while away.
export const reassignSchema = z
  .strictObject({
    email: z.email("email is a reviewer's email address").max(320).optional(),
    group: groupNameSchema.optional(),
    reason: z.string().trim().max(2000, "At most 2,000 characters").optional(),
  })
  .refine((b) => !!b.email !== !!b.group, { message: "Name a reviewer (email) or a routing group (group), one of them", path: ["email"] });

export const commentBodySchema = z.strictObject({
  text: z.string().trim().min(1, "Write a comment").max(2000, "At most 2,000 characters"),
});

export const delegationBodySchema = z
  .strictObject({
    deputy: z.email("deputy is a user's email address").max(320),
    startsAt: z.iso.datetime({ offset: true, message: "startsAt is an ISO date and time" }),
    endsAt: z.iso.datetime({ offset: true, message: "endsAt is an ISO date and time" }),
  })
  .refine((d) => Date.parse(d.endsAt) > Date.parse(d.startsAt), { message: "The end comes after the start", path: ["endsAt"] });
