// SCIM 2.0 (RFC 7643 resources, RFC 7644 protocol) as the IdPs send it: the bodies of Okta and Entra ID
// validated at the boundary, their PATCH operations read into one shape (Entra writes "Replace" and
// "False"; Okta sends a value object without a path), the filters they use, and the error body every
// refusal answers with. No database here: lib/scim/users.ts and lib/scim/groups.ts apply it.
import { z } from "zod";

export const SCHEMA = {
  user: "urn:ietf:params:scim:schemas:core:2.0:User",
  group: "urn:ietf:params:scim:schemas:core:2.0:Group",
  list: "urn:ietf:params:scim:api:messages:2.0:ListResponse",
  patch: "urn:ietf:params:scim:api:messages:2.0:PatchOp",
  error: "urn:ietf:params:scim:api:messages:2.0:Error",
  enterprise: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User",
} as const;

export type ScimType =
  | "invalidFilter"
  | "invalidSyntax"
  | "invalidValue"
  | "invalidPath"
  | "noTarget"
  | "uniqueness"
  | "mutability"
  | "tooMany";

/** A refusal as SCIM says it (RFC 7644 §3.12): the status, a scimType for a 400 or 409, and the detail. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly scimType?: ScimType,
  ) {
    super(message);
  }
}

export const scimErrorBody = (e: ScimError) => ({
  schemas: [SCHEMA.error],
  status: String(e.status),
  ...(e.scimType ? { scimType: e.scimType } : {}),
  detail: e.message,
});

/** A boolean as IdPs send one: true, or Entra's "True"/"False". */
export const scimBoolean = z.union([
  z.boolean(),
  z
    .string()
    .transform((s) => s.trim().toLowerCase())
    .pipe(z.enum(["true", "false"]))
    .transform((s) => s === "true"),
]);

const text = (max: number) => z.string().trim().min(1).max(max);

const nameSchema = z.looseObject({
  formatted: z.string().max(200).optional(),
  givenName: z.string().max(100).optional(),
  familyName: z.string().max(100).optional(),
});
const emailSchema = z.looseObject({ value: z.string().max(200), primary: scimBoolean.optional(), type: z.string().max(40).optional() });

/** A User as POST and PUT send it; attributes this console does not keep (title, addresses…) are accepted and ignored. */
export const scimUserSchema = z.looseObject({
  userName: text(200),
  externalId: z.string().max(200).nullish(),
  name: nameSchema.optional(),
  displayName: z.string().max(200).nullish(),
  emails: z.array(emailSchema).max(20).optional(),
  active: scimBoolean.optional(),
});
export type ScimUserInput = z.infer<typeof scimUserSchema>;

const memberSchema = z.looseObject({ value: text(100), display: z.string().max(300).optional() });
export const scimGroupSchema = z.looseObject({
  displayName: text(300),
  externalId: z.string().max(200).nullish(),
  members: z.array(memberSchema).max(10_000).optional(),
});

const patchOpSchema = z.looseObject({
  op: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(["add", "replace", "remove"], { message: 'op must be "add", "replace" or "remove"' })),
  path: z.string().max(300).optional(),
  value: z.unknown().optional(),
});
export const patchSchema = z.looseObject({
  schemas: z.array(z.string()).refine((s) => s.includes(SCHEMA.patch), { message: `schemas must include ${SCHEMA.patch}` }),
  Operations: z.array(patchOpSchema).min(1).max(1000),
});
export type PatchOp = z.infer<typeof patchOpSchema>;

/** Parses with schema or answers SCIM's 400 naming the first problem. */
export function parseScim<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const i = r.error.issues[0];
  const where = i.path.map(String).join(".");
  throw new ScimError(
    400,
    `${where ? `${where}: ` : ""}${i.message}`,
    i.code === "invalid_type" && !where ? "invalidSyntax" : "invalidValue",
  );
}

/**
 * The filters IdPs send before creating a resource (RFC 7644 §3.4.2.2): `attr eq "value"`, attr one of
 * those named. Anything else is refused as invalidFilter rather than silently matching everything.
 */
export function parseEqFilter(filter: string | null, attrs: readonly string[]): { attr: string; value: string } | null {
  if (filter === null || filter.trim() === "") return null;
  const m = /^\s*([A-Za-z][\w.:]*)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(filter);
  const attr = m ? attrs.find((a) => a.toLowerCase() === m[1].toLowerCase()) : undefined;
  if (!m || !attr) throw new ScimError(400, `Supported filters: ${attrs.map((a) => `${a} eq "…"`).join(", ")}`, "invalidFilter");
  let value: string;
  try {
    value = JSON.parse(`"${m[2]}"`) as string;
  } catch {
    throw new ScimError(400, "The filter's value is not a valid string", "invalidFilter");
  }
  return { attr, value };
}

/** startIndex (1-based) and count of a list request, within bounds (RFC 7644 §3.4.2.4). */
export function pageOf(params: URLSearchParams): { skip: number; take: number; startIndex: number } {
  const int = (name: string, fallback: number) => {
    const raw = params.get(name);
    if (raw === null || raw === "") return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n)) throw new ScimError(400, `${name} must be an integer`, "invalidValue");
    return n;
  };
  const startIndex = Math.max(1, int("startIndex", 1));
  const take = Math.min(Math.max(0, int("count", 100)), 200);
  return { skip: startIndex - 1, take, startIndex };
}

export const listResponse = (resources: unknown[], total: number, startIndex: number) => ({
  schemas: [SCHEMA.list],
  totalResults: total,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
});

/** The member ids a members filter path names: `members[value eq "id"]`; null when the path is not one. */
export function memberFilterOf(path: string): string | null {
  const m = /^members\s*\[\s*value\s+eq\s+"((?:[^"\\]|\\.)*)"\s*\]$/i.exec(path.trim());
  return m ? m[1] : null;
}

/** Member ids of a PATCH value: [{value}] (Okta, Entra) or one {value}. */
export function memberIdsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.map((m, i) => {
    const r = memberSchema.safeParse(m);
    if (!r.success) throw new ScimError(400, `members.${i}: each member is {"value": "<user id>"}`, "invalidValue");
    return r.data.value;
  });
}
