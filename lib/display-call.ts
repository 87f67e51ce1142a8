// What a pending request reads as beyond its arguments (lib/display.ts): a model-call gate's counters in
// words, a question's unanswered fields in words, and the results of earlier calls that bear on it (the
// order's total beside its refund, and a warning when the request exceeds it). Pure functions, for server
// and browser alike. Tool output is untrusted: only numbers and short text are read from it, and cut.
import { displayHint, fieldLabel, formatValue } from "./display.ts";
import { plural } from "./format.ts";

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

// Thousands separated by commas ("1234567" → "1,234,567").
const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** A token count as people say it: exact below 100, else to two significant figures ("about 1,200 tokens"). */
export function tokensWords(n: number): string {
  if (n < 100) return plural(n, "token");
  const step = 10 ** (String(Math.round(n)).length - 2);
  return `about ${grouped(Math.round(n / step) * step)} tokens`;
}

/** Dollars with four decimals, and "under $0.0001" for a cost that rounds to nothing. */
export function costWords(usd: number): string {
  if (usd > 0 && usd < 0.00005) return "under $0.0001";
  return `$${usd.toFixed(4)}`;
}

export type GateFacts = { model: string; step: number | null; calls: number; tokens: number; costUsd: number; messages: number | null };

/** A model-call gate's counters (lib/runner/gates.ts LlmGateFacts) as read back from its stored arguments. */
export function gateFacts(args: Record<string, unknown>): GateFacts {
  return {
    model: typeof args.model === "string" ? args.model : "the model",
    step: num(args.step),
    calls: num(args.llm_calls) ?? 0,
    tokens: num(args.total_tokens) ?? 0,
    costUsd: num(args.total_cost_usd) ?? 0,
    messages: num(args.message_count),
  };
}

/** What the run has used so far: "1 call, about 1,200 tokens, $0.0001". */
export function gateWords(f: GateFacts): string {
  return `${plural(f.calls, "call")}, ${tokensWords(f.tokens)}, ${costWords(f.costUsd)}`;
}

type Prop = { type?: unknown; enum?: unknown; minimum?: unknown; maximum?: unknown; oneOf?: unknown; anyOf?: unknown };
type ObjectSchema = { properties?: Record<string, Prop>; required?: string[] } | null | undefined;

const empty = (v: unknown) => v === undefined || v === null || v === "";

/** What to do about one field's value, in words ("enter a number"), or null when it fits the schema's basics. */
function fieldProblem(prop: Prop, v: unknown, required: boolean): string | null {
  const choice = Array.isArray(prop.enum) || Array.isArray(prop.oneOf) || Array.isArray(prop.anyOf);
  const numeric = prop.type === "number" || prop.type === "integer";
  if (empty(v)) {
    if (!required) return null;
    return choice ? "choose one" : numeric ? "enter a number" : prop.type === "boolean" ? "choose yes or no" : "fill this in";
  }
  if (numeric) {
    const n = num(v);
    if (n === null) return "enter a number";
    if (prop.type === "integer" && !Number.isInteger(n)) return "enter a whole number";
    const min = num(prop.minimum);
    const max = num(prop.maximum);
    // A bound in the field's money, else the bare number (the label says what is counted).
    const bound = (b: number) => (displayHint(prop).display === "money" ? formatValue(b, prop) : grouped(b));
    if (min !== null && n < min) return `at least ${bound(min)}`;
    if (max !== null && n > max) return `at most ${bound(max)}`;
  }
  return null;
}

/** The first field of an answer that does not fit its form ({ field, message: "Seats: enter a number" }), or null. */
export function answerProblem(schema: unknown, values: Record<string, unknown>): { field: string; message: string } | null {
  const s = schema as ObjectSchema;
  for (const [key, prop] of Object.entries(s?.properties ?? {})) {
    const problem = fieldProblem(prop ?? {}, values[key], !!s?.required?.includes(key));
    if (problem) return { field: key, message: `${fieldLabel(key, prop)}: ${problem}` };
  }
  return null;
}

/** A server's message about one field of a form in words: its field's label, then the message without the
 * machinery ("Answer is invalid: seats: Invalid input: expected number, received undefined" → "Seats: enter a number"). */
export function fieldMessage(schema: unknown, field: string, message: string, value: unknown): string {
  const prop = (schema as ObjectSchema)?.properties?.[field];
  if (!prop) return message;
  const required = !!(schema as ObjectSchema)?.required?.includes(field);
  const words = fieldProblem(prop, value, required);
  return `${fieldLabel(field, prop)}: ${words ?? message.replace(/^.*?:\s*(?:[\w.]+:\s*)?/, "")}`;
}

// ---- Earlier results that bear on a request ----

/** One value of an earlier tool result as shown beside a request. */
export type RelatedField = { key: string; label: string; text: string };
export type RelatedResult = { tool: string; callId: string; fields: RelatedField[] };
export type RequestCheck = { field: string; message: string };

const MAX_FIELDS = 12;
const MAX_TEXT = 200;

const cut = (s: string, max = MAX_TEXT) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** A money field of the request's schema (display: money), to read an earlier result's amounts of the same unit. */
function moneyFields(schema: unknown): [string, Record<string, unknown>][] {
  const props = (schema as ObjectSchema)?.properties ?? {};
  return Object.entries(props).filter(([, p]) => displayHint(p).display === "money") as [string, Record<string, unknown>][];
}

// An amount's unit as its key says it ("amount_cents", "total_cents" → "cents"); money fields and result
// fields are compared, and formatted alike, only when their keys end in the same unit.
const UNIT_SUFFIX = /_(cents|minor|pence|units)$/;
const unitSuffix = (key: string) => UNIT_SUFFIX.exec(key)?.[1] ?? null;
const withoutUnit = (key: string) => key.replace(UNIT_SUFFIX, "");

/** A tool result (untrusted text) read as the flat fields of a JSON object, cut; null when it is not one. */
export function resultFields(content: string, schema: unknown): RelatedField[] | null {
  let v: unknown;
  try {
    v = JSON.parse(content.slice(0, 20_000));
  } catch {
    return null;
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return null;
  const money = moneyFields(schema);
  return Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x === null || ["string", "number", "boolean"].includes(typeof x))
    .slice(0, MAX_FIELDS)
    .map(([key, x]) => {
      // An amount in the unit of one of the request's money fields reads as that money.
      // Its label then drops the unit the money already says ("total_cents" → "Total", €79.19).
      const like = money.find(([k]) => unitSuffix(k) !== null && unitSuffix(k) === unitSuffix(key));
      return { key: cut(key, 60), label: cut(fieldLabel(like ? withoutUnit(key) : key), 60), text: cut(formatValue(x, like?.[1])) };
    });
}

/**
 * Where a request asks for more than an earlier result allows: a money argument above a total of the same
 * unit that an earlier call returned ("Amount €1,500.00 is more than the total €233.98 that lookup_order
 * returned").
 */
export function requestChecks(
  args: Record<string, unknown>,
  schema: unknown,
  results: { tool: string; content: string }[],
): RequestCheck[] {
  const out: RequestCheck[] = [];
  for (const [key, prop] of moneyFields(schema)) {
    const asked = num(args[key]);
    const unit = unitSuffix(key);
    if (asked === null || !unit) continue;
    for (const r of results) {
      let v: unknown;
      try {
        v = JSON.parse(r.content.slice(0, 20_000));
      } catch {
        continue;
      }
      if (!v || typeof v !== "object" || Array.isArray(v)) continue;
      for (const [rk, rv] of Object.entries(v as Record<string, unknown>)) {
        const total = num(rv);
        if (total === null || !/total/i.test(rk) || unitSuffix(rk) !== unit || asked <= total) continue;
        out.push({
          field: key,
          message: `${fieldLabel(key, prop)} ${formatValue(asked, prop)} is more than the ${fieldLabel(withoutUnit(rk)).toLowerCase()} ${formatValue(total, prop)} that ${cut(r.tool, 60)} returned`,
        });
      }
    }
  }
  return out;
}
