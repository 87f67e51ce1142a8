// A form's values checked against the JSON schema the form was built from, every field at once and in
// words, before anything is sent: what the schema can say (required, types, bounds, lengths, patterns,
// choices). The server checks again with the zod schema itself; its answer names one field.
import { displayHint, formatValue } from "./display.ts";
import { plural } from "./format.ts";

type Prop = {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
};
type Schema = { properties?: Record<string, unknown>; required?: string[] };

function checkOne(v: unknown, p: Prop, required: boolean): string | null {
  const empty = v === undefined || v === null || v === "";
  if (empty) return required ? "Required" : null;
  const h = displayHint(p);
  const type = Array.isArray(p.type) ? p.type.find((t) => t !== "null") : p.type;
  if (p.enum && !p.enum.includes(v)) return "Choose one of the options";
  if (type === "integer" || type === "number") {
    if (typeof v !== "number" || !Number.isFinite(v))
      return h.display === "money" ? `Enter an amount such as ${formatValue(12500, { ...p, currency: undefined })}` : "Enter a number";
    if (type === "integer" && !Number.isInteger(v)) return "Enter a whole number";
    const shown = (n: number) => formatValue(n, p);
    if (p.exclusiveMinimum !== undefined && v <= p.exclusiveMinimum)
      return p.exclusiveMinimum === 0 ? "Must be more than zero" : `Must be more than ${shown(p.exclusiveMinimum)}`;
    if (p.minimum !== undefined && v < p.minimum) return `At least ${shown(p.minimum)}`;
    if (p.exclusiveMaximum !== undefined && v >= p.exclusiveMaximum) return `Must be less than ${shown(p.exclusiveMaximum)}`;
    if (p.maximum !== undefined && v > p.maximum) return `At most ${shown(p.maximum)}`;
    return null;
  }
  if (type === "string") {
    if (typeof v !== "string") return "Enter text";
    const text = v.trim();
    if (p.minLength !== undefined && text.length < p.minLength)
      return p.minLength <= 1 ? "Required" : `At least ${plural(p.minLength, "character")}`;
    if (p.maxLength !== undefined && v.length > p.maxLength) return `At most ${plural(p.maxLength, "character")}`;
    if (p.pattern !== undefined) {
      let re: RegExp | null = null;
      try {
        re = new RegExp(p.pattern, "u");
      } catch {
        re = null; // a pattern this browser cannot read is left to the server
      }
      if (re && !re.test(v)) return p.description ?? "Not in the expected form";
    }
  }
  if (type === "boolean" && typeof v !== "boolean") return "Choose yes or no";
  return null;
}

/** Every invalid field of `values`, by key, with what is wrong in words; empty when the form can be sent. */
export function checkValues(schema: unknown, values: Record<string, unknown>): Record<string, string> {
  const s = (schema ?? {}) as Schema;
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  const out: Record<string, string> = {};
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    const p = (prop && typeof prop === "object" ? prop : {}) as Prop;
    const problem = checkOne(values[key], p, required.has(key));
    if (problem) out[key] = problem;
  }
  return out;
}
