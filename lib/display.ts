// How a value reads to a person. A tool's argument schema or an agent's input schema says how to show a
// field through zod's `.meta()` (e.g. `{ title: "Amount", display: "money", currency: "EUR", minorUnits: 2 }`),
// which z.toJSONSchema copies into the field's JSON schema; the UI gets that JSON schema and reads the hint
// here. Schemas also come from external runtimes, so every hint is checked when read: a key that does not
// fit the vocabulary is ignored and the value shown as it is. Pure functions, for server and browser alike
// (no locale or time zone of the machine: the server's HTML and the browser's first render agree).
import { z } from "zod";

const labelText = z.string().min(1).max(200);

/** The hint vocabulary, one key at a time (an invalid key drops only itself). */
const hintKeys = {
  title: labelText,
  description: z.string().max(2000),
  /** money: an integer in minor units (cents) shown in major units; date / datetime: ISO text or epoch ms;
   * long-text: shown whole, wrapped, edited in a text area. */
  display: z.enum(["money", "date", "datetime", "long-text"]),
  /** ISO 4217 code of a money field. */
  currency: z.string().regex(/^[A-Z]{3}$/),
  /** Digits after the decimal point of a money field (2 for cents). */
  minorUnits: z.number().int().min(0).max(6),
  /** A unit said after a number ("GB", "days"). */
  unit: z.string().min(1).max(40),
  /** Labels of an enum's values. */
  labels: z.record(z.string(), labelText),
} as const;

export const displayHintSchema = z.object(Object.fromEntries(Object.entries(hintKeys).map(([k, s]) => [k, s.optional()]))) as z.ZodType<
  Partial<{ [K in keyof typeof hintKeys]: z.infer<(typeof hintKeys)[K]> }>
>;
export type DisplayHint = z.infer<typeof displayHintSchema>;

/** The valid hint keys of a field's JSON schema (anything else, or nothing at all, reads as no hint). */
export function displayHint(prop: unknown): DisplayHint {
  if (!prop || typeof prop !== "object") return {};
  const out: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(hintKeys)) {
    const v = (prop as Record<string, unknown>)[k];
    // No key fits when absent (no schema here takes undefined): most fields have one hint or none, and a
    // run page reads each field's several times.
    if (v === undefined) continue;
    const r = (s as z.ZodType).safeParse(v);
    if (r.success) out[k] = r.data;
  }
  return out as DisplayHint;
}

const humanize = (k: string) => k.replace(/[_-]+/g, " ").replace(/^./, (c) => c.toUpperCase());

/** A field's label: its schema's title, else its key in words ("amount_cents" → "Amount cents"). */
export const fieldLabel = (key: string, prop?: unknown) => displayHint(prop).title ?? humanize(key);

/** What a field's value is counted in, for a form's hint: the currency of money, else the unit. */
export function unitOf(prop: unknown): string | null {
  const h = displayHint(prop);
  if (h.display === "money") return h.currency ?? null;
  return h.unit ?? null;
}

const minorOf = (h: DisplayHint) => h.minorUnits ?? 2;

/** An integer in minor units as a decimal in major units, exactly (12500, 2 → "125.00"; -5, 2 → "-0.05"). */
export function minorToMajor(minor: number, minorUnits: number): string {
  const neg = minor < 0;
  const digits = String(Math.abs(minor)).padStart(minorUnits + 1, "0");
  const whole = digits.slice(0, digits.length - minorUnits);
  const frac = digits.slice(digits.length - minorUnits);
  return `${neg ? "-" : ""}${whole}${minorUnits ? `.${frac}` : ""}`;
}

/** Typed major units back to minor ("125.5", 2 → 12550); null when it is not a number with at most minorUnits decimals. */
export function majorToMinor(text: string, minorUnits: number): number | null {
  const m = /^\s*(-?)(\d*)(?:[.,](\d*))?\s*$/.exec(text);
  if (!m || (!m[2] && !m[3]) || (m[3]?.length ?? 0) > minorUnits) return null;
  const n = Number(`${m[1]}${m[2] || "0"}${(m[3] ?? "").padEnd(minorUnits, "0")}`);
  return Number.isSafeInteger(n) ? n : null;
}

// Thousands separated by commas, in the whole part only ("1234567.89" → "1,234,567.89").
const grouped = (decimal: string) => {
  const point = decimal.indexOf(".");
  const whole = point < 0 ? decimal : decimal.slice(0, point);
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (point < 0 ? "" : decimal.slice(point));
};

function money(v: unknown, h: DisplayHint): string | null {
  if (typeof v !== "number" || !Number.isSafeInteger(v)) return null;
  const major = grouped(minorToMajor(v, minorOf(h)));
  if (!h.currency) return major;
  const symbol = ({ EUR: "€", USD: "$", GBP: "£", JPY: "¥" } as Record<string, string>)[h.currency];
  if (!symbol) return `${major} ${h.currency}`;
  return major.startsWith("-") ? `-${symbol}${major.slice(1)}` : `${symbol}${major}`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function date(v: unknown, withTime: boolean): string | null {
  // A bare date is a calendar day: read as UTC so that no time zone moves it.
  const d =
    typeof v === "number" ? new Date(v) : typeof v === "string" ? new Date(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v) : null;
  if (!d || Number.isNaN(d.getTime())) return null;
  const day = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  if (!withTime) return day;
  const hm = `${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`;
  return `${day}, ${hm} UTC`;
}

/** JSON as people read it: indented, one key a line. */
export const prettyJson = (v: unknown) => JSON.stringify(v, null, 2) ?? String(v);

/** Text that is a JSON object or array (a tool's result) pretty-printed, so it wraps between tokens; any other text as it is. */
export function readableText(s: string): string {
  const t = s.trim();
  if (!/^[[{]/.test(t)) return s;
  try {
    return prettyJson(JSON.parse(t));
  } catch {
    return s;
  }
}

/** One value as text, by its field's hint; without one: text as it is, numbers, yes/no, compact JSON. */
export function formatValue(v: unknown, prop?: unknown): string {
  const h = displayHint(prop);
  if (v === undefined || v === null || v === "") return "—";
  const hinted =
    h.display === "money"
      ? money(v, h)
      : h.display === "date" || h.display === "datetime"
        ? date(v, h.display === "datetime")
        : typeof v === "string" && h.labels?.[v]
          ? h.labels[v]
          : null;
  if (hinted !== null) return hinted;
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "number") return h.unit ? `${grouped(String(v))} ${h.unit}` : String(v);
  return JSON.stringify(v);
}

/** A field as the UI lists it. `long`: shown on its own lines (long text, or nested JSON, pretty-printed). */
export type FieldView = { key: string; label: string; text: string; long: boolean };

type SchemaLike = { properties?: Record<string, unknown> } | null | undefined;

const propsOf = (schema: unknown): Record<string, unknown> => {
  const p = (schema as SchemaLike)?.properties;
  return p && typeof p === "object" && !Array.isArray(p) ? p : {};
};

/** The fields of an argument object, in the schema's order, then any the schema does not name. */
export function fieldViews(values: Record<string, unknown>, schema: unknown): FieldView[] {
  const props = propsOf(schema);
  const keys = [...Object.keys(props).filter((k) => k in values), ...Object.keys(values).filter((k) => !(k in props))];
  return keys.map((key) => {
    const v = values[key];
    const nested = v !== null && typeof v === "object";
    const text = nested && !displayHint(props[key]).display ? prettyJson(v) : formatValue(v, props[key]);
    return {
      key,
      label: fieldLabel(key, props[key]),
      text,
      long: nested || displayHint(props[key]).display === "long-text" || text.length > 80,
    };
  });
}

const oneLine = (s: string, max: number) => {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** Arguments in one line for a list ("Order: ORD-1 · Amount: €125.00 · Reason: damaged"), each value cut at 160 characters. */
export function summarizeArgs(values: Record<string, unknown>, schema: unknown, max = 300): string {
  const props = propsOf(schema);
  return oneLine(
    fieldViews(values, schema)
      .map((f) => `${f.label}: ${oneLine(f.long ? formatValue(values[f.key], props[f.key]) : f.text, 160)}`)
      .join(" · "),
    max,
  );
}

/** The values alone in one line, for a run in a list ("ORD-1001 · €90.00 · Damaged"), each cut at 40 characters. */
export function summarizeValues(values: Record<string, unknown>, schema: unknown, max = 80): string {
  return oneLine(
    fieldViews(values, schema)
      .map((f) => oneLine(f.text, 40))
      .join(" · "),
    max,
  );
}

/** A changed field as the diff shows it: its label and both values as people read them. */
export function changeView(c: { field: string; before: unknown; after: unknown }, schema: unknown) {
  const prop = propsOf(schema)[c.field];
  return { label: fieldLabel(c.field, prop), before: formatValue(c.before, prop), after: formatValue(c.after, prop) };
}

/** An agent's input as the first user message: one field a line by its label, the value as people read it
 * and, where that differs, the field's key and stored value (what the model's tools take) in brackets. */
export function inputMessage(input: Record<string, unknown>, schema: unknown): string {
  const props = propsOf(schema);
  return fieldViews(input, schema)
    .map((f) => {
      const raw = input[f.key];
      const stored = typeof raw === "string" ? raw : JSON.stringify(raw);
      const same = f.text === stored || displayHint(props[f.key]).display === "long-text" || (raw !== null && typeof raw === "object");
      const shown = same ? f.text : `${f.text} (${f.key}: ${stored})`;
      return shown.includes("\n") ? `${f.label}:\n${shown}` : `${f.label}: ${shown}`;
    })
    .join("\n");
}
