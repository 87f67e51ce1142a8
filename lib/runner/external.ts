// Interrupts an external runtime parks here (the runtime protocol, lib/services/runtime-protocol.ts). They are
// approval records like any other — same keys, same decisions, same reviewers — with what only the runtime
// knows beside them: its own id for the interrupt, the step's batch, which decisions it can apply, the
// arguments' and the answer's JSON schemas (validated here, since no tool of ours has them) and metadata.
import { z } from "zod";
import { ApprovalDecisionError } from "./errors.ts";

/** What a runtime may offer a reviewer per interrupt; a framework that cannot apply edited arguments omits edit. */
export const EXTERNAL_DECISIONS = ["approve", "edit", "reject", "respond"] as const;
export type ExternalDecision = (typeof EXTERNAL_DECISIONS)[number];

export const externalInterruptSchema = z.object({
  /** The runtime's own id (a tool call id, an interrupt id): registering it again returns this record. */
  interrupt_id: z.string(),
  /** The several calls of one step share a batch (they were asked together and are applied together). */
  batch_id: z.string().nullable(),
  /** The tool call's own id where the framework has one apart from the interrupt's. */
  call_id: z.string().nullable(),
  decisions: z.array(z.enum(EXTERNAL_DECISIONS)),
  args_schema: z.record(z.string(), z.unknown()).nullable(),
  /** A question's answer (MCP elicitation's flat object subset); null: a text answer. */
  response_schema: z.record(z.string(), z.unknown()).nullable(),
  metadata: z.record(z.string(), z.unknown()),
});
export type ExternalInterrupt = z.infer<typeof externalInterruptSchema>;

function zodOf(schema: Record<string, unknown> | null, what: string): z.ZodType | undefined {
  if (!schema) return undefined;
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    throw new ApprovalDecisionError(`The runtime's ${what} schema cannot be used to check a decision`, "invalid_args", what);
  }
}

/** The tool a decision on an external interrupt is checked against: the schemas the runtime gave. */
export function externalTool(ext: ExternalInterrupt): { schema?: z.ZodType; asksHuman?: { answerSchema?: z.ZodObject } } {
  // Without a schema any object of arguments may be edited in (the runtime checks them itself).
  const schema = zodOf(ext.args_schema, "args") ?? z.record(z.string(), z.unknown());
  const answer = zodOf(ext.response_schema, "answer");
  return { schema, asksHuman: answer instanceof z.ZodObject ? { answerSchema: answer } : {} };
}

/** Refuses a decision the runtime said it cannot apply (approve with arguments is an edit). */
export function assertOffered(ext: ExternalInterrupt, decision: "approve" | "reject" | "respond", edited: boolean) {
  const asked: ExternalDecision = decision === "approve" && edited ? "edit" : decision;
  if (!ext.decisions.includes(asked))
    throw new ApprovalDecisionError(
      `The runtime that asked cannot apply ${asked}; it offers ${ext.decisions.join(", ")}`,
      "invalid_args",
      asked === "edit" ? "args" : "decision",
    );
}

// A schema keyword whose value is a regular expression: one that does not compile is refused with the rest.
function compileError(schema: unknown): string | null {
  const own = (schema as { pattern?: unknown } | null)?.pattern;
  try {
    if (typeof own === "string") new RegExp(own);
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

// The subschemas of a schema, each with its path (the keywords JSON Schema nests schemas under).
function subschemas(s: Record<string, unknown>): [string[], unknown][] {
  const out: [string[], unknown][] = [];
  for (const k of ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"])
    if (isObject(s[k])) for (const [name, sub] of Object.entries(s[k])) out.push([[k, name], sub]);
  for (const k of ["anyOf", "oneOf", "allOf", "prefixItems"])
    if (Array.isArray(s[k])) for (const [i, sub] of (s[k] as unknown[]).entries()) out.push([[k, String(i)], sub]);
  for (const k of ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"])
    if (isObject(s[k])) out.push([[k], s[k]]);
  return out;
}

/**
 * Where a runtime's schema cannot be compiled (the console checks decisions with it), or null when it can:
 * the path of the deepest subschema that fails on its own ("" for the whole), and why.
 */
export function schemaProblem(schema: Record<string, unknown>): { path: string; message: string } | null {
  const message = compileError(schema);
  if (!message) return null;
  const deepest = (s: Record<string, unknown>, at: string[]): string[] => {
    for (const [key, sub] of subschemas(s)) if (isObject(sub) && compileError(sub)) return deepest(sub, [...at, ...key]);
    return at;
  };
  return { path: deepest(schema, []).join("."), message };
}
