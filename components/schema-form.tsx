"use client";
// Labelled inputs generated from a JSON schema (as zod's toJSONSchema writes it): strings, numbers,
// integers, booleans and enums, shown as the schema's display hints say (lib/display.ts): money typed in
// major units and kept in minor units, enum labels, long text in a text area, the unit beside the label.
// Values keep their types, so the server validates exactly what it gets.
import { useState } from "react";
import { displayHint, fieldLabel, majorToMinor, minorToMajor, unitOf } from "@/lib/display";

type Prop = {
  type?: string;
  enum?: unknown[];
  description?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  default?: unknown;
};
export type JsonSchema = { properties?: Record<string, Prop>; required?: string[] };

export type Values = Record<string, unknown>;

export function initialValues(schema: JsonSchema, start: Values = {}): Values {
  const out: Values = {};
  for (const [k, p] of Object.entries(schema.properties ?? {}))
    out[k] = start[k] ?? p.default ?? (p.enum ? p.enum[0] : p.type === "boolean" ? false : "");
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
        if (p.enum) {
          control = (
            <select {...common} value={String(values[key] ?? "")} onChange={(e) => set(p.enum?.find((o) => String(o) === e.target.value))}>
              {p.enum.map((o) => (
                <option key={String(o)} value={String(o)}>
                  {typeof o === "string" && hint.labels?.[o] ? hint.labels[o] : String(o)}
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
        const unit = unitOf(p);
        return (
          <div key={key}>
            <label className="label" htmlFor={id}>
              {fieldLabel(key, p)}
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

// Empty number fields are sent as missing, so the server names them as required.
export function cleanValues(v: Values): Values {
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== ""));
}
