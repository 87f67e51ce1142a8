"use client";
// Labelled inputs generated from a JSON schema (as zod's toJSONSchema writes it): strings, numbers,
// integers, booleans and enums. Values keep their types, so the server validates exactly what it gets.
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

const humanize = (k: string) => k.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());

export function initialValues(schema: JsonSchema, start: Values = {}): Values {
  const out: Values = {};
  for (const [k, p] of Object.entries(schema.properties ?? {}))
    out[k] = start[k] ?? p.default ?? (p.enum ? p.enum[0] : p.type === "boolean" ? false : "");
  return out;
}

export function SchemaFields({
  schema,
  values,
  onChange,
  errorField,
  errorMessage,
  idPrefix,
}: {
  schema: JsonSchema;
  values: Values;
  onChange: (v: Values) => void;
  errorField?: string;
  errorMessage?: string;
  idPrefix: string;
}) {
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([key, p]) => {
        const id = `${idPrefix}-${key}`;
        const invalid = errorField === key;
        const set = (v: unknown) => onChange({ ...values, [key]: v });
        const common = {
          id,
          name: key,
          "aria-invalid": invalid,
          "aria-describedby": invalid ? `${id}-error` : undefined,
          className: "input mt-1",
        };
        let control: React.ReactNode;
        if (p.enum) {
          control = (
            <select {...common} value={String(values[key] ?? "")} onChange={(e) => set(e.target.value)}>
              {p.enum.map((o) => (
                <option key={String(o)} value={String(o)}>
                  {String(o)}
                </option>
              ))}
            </select>
          );
        } else if (p.type === "integer" || p.type === "number") {
          control = (
            <input
              {...common}
              type="number"
              inputMode="numeric"
              step={p.type === "integer" ? 1 : "any"}
              value={values[key] === "" || values[key] === undefined ? "" : String(values[key])}
              onChange={(e) => set(e.target.value === "" ? "" : Number(e.target.value))}
            />
          );
        } else if (p.type === "boolean") {
          control = <input {...common} type="checkbox" className="mt-1" checked={!!values[key]} onChange={(e) => set(e.target.checked)} />;
        } else if ((p.maxLength ?? 0) > 300) {
          control = <textarea {...common} rows={3} value={String(values[key] ?? "")} onChange={(e) => set(e.target.value)} />;
        } else {
          control = <input {...common} type="text" value={String(values[key] ?? "")} onChange={(e) => set(e.target.value)} />;
        }
        return (
          <div key={key}>
            <label className="label" htmlFor={id}>
              {humanize(key)}
              {schema.required?.includes(key) ? "" : " (optional)"}
            </label>
            {control}
            {p.description && <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{p.description}</p>}
            {invalid && (
              <p id={`${id}-error`} className="mt-1 text-xs text-rose-700 dark:text-rose-400">
                {errorMessage}
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
