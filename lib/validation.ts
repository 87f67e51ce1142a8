import { z } from "zod";
import { ValidationError } from "./auth/errors.ts";

// Parse or throw a 400 naming the first wrong field.
export function parseOr400<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue.path.length
    ? issue.path.join(".")
    : issue.code === "unrecognized_keys"
      ? String((issue as { keys?: string[] }).keys?.[0])
      : "body";
  throw new ValidationError(field, issue.message);
}

// A whole number in a query string: digits only (Number() would also take " 1", "0x10" or a BOM).
export const intParam = (min: number, max: number) =>
  z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d{1,9}$/, "Must be a whole number")
        .transform(Number),
    ])
    .pipe(z.number().int().min(min).max(max));

// A date or date-time in a query string (from/to filters).
export const dateParam = z.iso
  .datetime({ offset: true, local: true })
  .or(z.iso.date())
  .transform((s) => new Date(s));

// An id a server action takes as an argument: actions are public endpoints, and nothing but a string of a
// sane length reaches a query.
export function idArg(field: string, v: unknown): string {
  if (typeof v !== "string" || v.length === 0 || v.length > 400) throw new ValidationError(field, `${field} must be an id`);
  return v;
}
