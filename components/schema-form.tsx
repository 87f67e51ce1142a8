"use client";
// Labelled inputs generated from a JSON schema (as zod's toJSONSchema writes it, or an MCP server's
// elicitation schema): strings, numbers, integers, booleans, single-selects (`enum` with its labels or
// `enumNames`, or `oneOf` / `anyOf` of titled `const`s) and multi-selects (an array of such choices), shown
// as the schema's display hints say (lib/display.ts): money typed in major units and kept in minor units,
// long text in a text area, the unit beside the label. Values keep their types, so the server validates
// exactly what it gets. An optional field starts empty unless the schema gives a default, and an empty
// field is left out of what is sent.
import { useState } from "react";
import { displayHint, fieldLabel, majorToMinor, minorToMajor, unitOf } from "@/lib/display";

type Titled = { const: unknown; title?: string };
type Choices = { enum?: unknown[]; enumNames?: string[]; oneOf?: Titled[]; anyOf?: Titled[] };
type Prop = Choices & {
  type?: string;
  items?: Choices & { type?: string };
  description?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  default?: unknown;
};
export type JsonSchema = { properties?: Record<string, Prop>; required?: string[] };

export type Values = Record<string, unknown>;

type Option = { value: unknown; label: string };

/** A single choice's options with their labels: titled consts, or an enum with enumNames or display labels. */
function optionsOf(c: Choices | undefined, labels?: Record<string, string>): Option[] | null {
  if (!c) return null;
  const titled = c.oneOf ?? c.anyOf;
  if (titled?.length && titled.every((o) => o && typeof o === "object" && "const" in o))
    return titled.map((o) => ({ value: o.const, label: o.title ?? String(o.const) }));
  if (c.enum)
    return c.enum.map((v, i) => ({ value: v, label: c.enumNames?.[i] ?? (typeof v === "string" ? labels?.[v] : undefined) ?? String(v) }));
  return null;
}

/**
 * The form's first values: what it starts from, else the schema's default; a required field without one
 * starts at its first option, unticked or empty; an optional one starts empty and is left out if untouched.
 */
export function initialValues(schema: JsonSchema, start: Values = {}): Values {
  const out: Values = {};
  for (const [k, p] of Object.entries(schema.properties ?? {})) {
    if (start[k] !== undefined) out[k] = start[k];
    else if (p.default !== undefined) out[k] = p.default;
    else if (!schema.required?.includes(k)) out[k] = p.type === "array" ? [] : "";
    else out[k] = p.type === "array" ? [] : p.type === "boolean" ? false : (optionsOf(p)?.[0]?.value ?? "");
  }
  return out;
}

type Common = {
  id: string;
  name: string;
  "aria-invalid": boolean;
  "aria-describedby"?: string;
  "aria-required"?: boolean;
  className: string;
};

// Money is typed in major units ("125.50") and kept in minor units (12550). Text that is not an amount is
// kept as typed, so the check names it instead of it silently becoming something else.
function MoneyInput({ common, value, minorUnits, set }: { common: Common; value: unknown; minorUnits: number; set: (v: unknown) => void }) {
  const shown = (v: unknown) => (typeof v === "number" && Number.isSafeInteger(v) ? minorToMajor(v, minorUnits) : String(v ?? ""));
  const [text, setText] = useState(() => shown(value));
  // Changed from outside (a reset, another agent's form): show the new value.
  const [seen, setSeen] = useState(value);
  if (seen !== value) {
    setSeen(value);
    if (majorToMinor(text, minorUnits) !== value) setText(shown(value));
  }
  return (
    <input
      {...common}
      type="text"
      inputMode="decimal"
      autoComplete="off"
      value={text}
      onChange={(e) => {
        const t = e.target.value;
        setText(t);
        const minor = majorToMinor(t, minorUnits);
        const next = t.trim() === "" ? "" : (minor ?? t);
        setSeen(next);
        set(next);
      }}
    />
  );
}

export function SchemaFields({
  schema,
  values,
  onChange,
  errors,
  errorField,
  errorMessage,
  idPrefix,
}: {
  schema: JsonSchema;
  values: Values;
  onChange: (v: Values) => void;
  /** Every invalid field and what is wrong with it. */
  errors?: Record<string, string>;
  /** Or one field's error (a server's answer). */
  errorField?: string;
  errorMessage?: string;
  idPrefix: string;
}) {
  const problems: Record<string, string> = { ...(errorField && errorMessage ? { [errorField]: errorMessage } : {}), ...errors };
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([key, p]) => {
        const id = `${idPrefix}-${key}`;
        const problem = problems[key];
        const invalid = !!problem;
        const hint = displayHint(p);
        const required = !!schema.required?.includes(key);
        const set = (v: unknown) => onChange({ ...values, [key]: v });
        // The hint goes when the error says the same.
        const showHint = !!p.description && !(invalid && problem === p.description);
        const describedBy = [invalid ? `${id}-error` : "", showHint ? `${id}-hint` : ""].filter(Boolean).join(" ");
        const common: Common = {
          id,
          name: key,
          "aria-invalid": invalid,
          "aria-describedby": describedBy || undefined,
          "aria-required": required || undefined,
          className: `input mt-1${invalid ? " border-rose-600 focus:border-rose-600 focus:ring-rose-600 dark:border-rose-400" : ""}`,
        };
        let control: React.ReactNode;
        const options = optionsOf(p, hint.labels);
        const itemOptions = p.type === "array" ? optionsOf(p.items) : null;
        // An optional boolean the schema gives no default for may stay unanswered: a select, not a checkbox.
        const choices = options ?? (p.type === "boolean" && !required && p.default === undefined ? yesNo : null);
        if (itemOptions) {
          const picked = Array.isArray(values[key]) ? (values[key] as unknown[]) : [];
          control = (
            <fieldset
              id={id}
              aria-labelledby={`${id}-label`}
              aria-invalid={invalid}
              aria-describedby={common["aria-describedby"]}
              className="mt-1 flex flex-wrap gap-x-4 gap-y-1"
            >
              {itemOptions.map((o, i) => (
                <label key={String(o.value)} className="flex min-h-6 items-center gap-2 text-sm" htmlFor={`${id}-${i}`}>
                  <input
                    id={`${id}-${i}`}
                    type="checkbox"
                    checked={picked.includes(o.value)}
                    onChange={(e) => set(e.target.checked ? [...picked, o.value] : picked.filter((v) => v !== o.value))}
                  />
                  {o.label}
                </label>
              ))}
            </fieldset>
          );
        } else if (choices) {
          // An option's value is its choice as text (what a form posts and a test selects).
          const at = choices.findIndex((o) => o.value === values[key]);
          control = (
            <select
              {...common}
              value={at < 0 ? "" : String(values[key])}
              onChange={(e) => set(e.target.value === "" ? "" : (choices.find((o) => String(o.value) === e.target.value)?.value ?? ""))}
            >
              {(at < 0 || !required) && <option value="">{required ? "Choose…" : "—"}</option>}
              {choices.map((o) => (
                <option key={String(o.value)} value={String(o.value)}>
                  {o.label}
                </option>
              ))}
            </select>
          );
        } else if ((p.type === "integer" || p.type === "number") && hint.display === "money") {
          control = <MoneyInput common={common} value={values[key]} minorUnits={hint.minorUnits ?? 2} set={set} />;
        } else if (p.type === "integer" || p.type === "number") {
          control = (
            <input
              {...common}
              type="number"
              inputMode={p.type === "integer" ? "numeric" : "decimal"}
              step={p.type === "integer" ? 1 : "any"}
              value={values[key] === "" || values[key] === undefined ? "" : String(values[key])}
              onChange={(e) => set(e.target.value === "" ? "" : Number(e.target.value))}
            />
          );
        } else if (p.type === "boolean") {
          control = <input {...common} type="checkbox" className="mt-1" checked={!!values[key]} onChange={(e) => set(e.target.checked)} />;
        } else if (hint.display === "long-text" || (p.maxLength ?? 0) > 300) {
          control = <textarea {...common} rows={3} value={String(values[key] ?? "")} onChange={(e) => set(e.target.value)} />;
        } else {
          control = <input {...common} type="text" value={String(values[key] ?? "")} onChange={(e) => set(e.target.value)} />;
        }
        // The unit beside the label, unless the label says it already ("Seats", unit "seats").
        const label = fieldLabel(key, p);
        const unit = unitOf(p) && !label.toLowerCase().includes(String(unitOf(p)).toLowerCase()) ? unitOf(p) : null;
        return (
          <div key={key}>
            <label className="label" htmlFor={itemOptions ? undefined : id} id={`${id}-label`}>
              {label}
              {unit && <span className="font-normal text-slate-600 dark:text-slate-400"> ({unit})</span>}
              {required ? (
                <span className="text-rose-700 dark:text-rose-400" aria-hidden="true">
                  {" "}
                  *
                </span>
              ) : (
                <span className="font-normal text-slate-600 dark:text-slate-400"> (optional)</span>
              )}
            </label>
            {control}
            {invalid && (
              <p id={`${id}-error`} className="mt-1 text-xs font-medium text-rose-700 dark:text-rose-400">
                {problem}
              </p>
            )}
            {showHint && (
              <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
                {p.description}
              </p>
            )}
          </div>
        );
      })}
    </>
  );
}

const yesNo: Option[] = [
  { value: true, label: "Yes" },
  { value: false, label: "No" },
];

// Empty fields are sent as missing: an optional one is left out, a required one is named by the server.
export function cleanValues(v: Values): Values {
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== "" && x !== undefined));
}
