// Arguments as people read them (lib/display.ts): one field a row, label and value, money in major units,
// enum labels, long text and nested JSON on their own wrapped lines. Text nodes only: the values are the
// model's, untrusted.
import { fieldViews } from "@/lib/display";

export function ArgFields({ values, schema, label }: { values: Record<string, unknown>; schema: unknown; label: string }) {
  const fields = fieldViews(values, schema);
  if (!fields.length) return null;
  return (
    <dl className="grid grid-cols-[minmax(0,auto)_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm" aria-label={label}>
      {fields.map((f) => (
        <div key={f.key} className={f.long ? "col-span-2" : "contents"}>
          <dt className="text-slate-600 dark:text-slate-400">{f.label}</dt>
          <dd className={f.long ? "whitespace-pre-wrap break-words font-mono text-xs" : "break-words font-medium"}>{f.text}</dd>
        </div>
      ))}
    </dl>
  );
}
