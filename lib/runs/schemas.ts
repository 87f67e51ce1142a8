// Request bodies and query strings of the runs area; every route and server action parses with these.
import { z } from "zod";
import { RUN_STATES } from "../runner/index.ts";
import { dateParam, intParam } from "../validation.ts";

export const startRunSchema = z.strictObject({
  agent: z.string().min(1, "Pick an agent").max(100),
  input: z.record(z.string(), z.unknown()),
});

export const decisionSchema = z
  .strictObject({
    decision: z.enum(["approve", "reject"], { message: 'decision must be "approve" or "reject"' }),
    reason: z.string().max(2000).optional(),
    args: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((d) => d.decision === "approve" || !!d.reason?.trim(), { message: "A reason is required to reject", path: ["reason"] })
  .refine((d) => d.decision === "approve" || d.args === undefined, { message: "Arguments can only be edited on approve", path: ["args"] });

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

export const inboxFiltersSchema = z.strictObject({ agent: z.string().max(100).optional(), tool: z.string().max(100).optional() });

export const timelineQuerySchema = z.strictObject({ cursor: z.string().max(300).optional(), take: intParam(1, 500).optional() });

// Query strings arrive as strings; empty values mean "no filter".
export function queryObject(params: URLSearchParams | Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = params instanceof URLSearchParams ? [...params.entries()] : Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v] as const);
  for (const [k, v] of entries) if (typeof v === "string" && v !== "") out[k] = v;
  return out;
}
