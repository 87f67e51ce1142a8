// A filter form's labelled select: the empty value ("Any") first, then the options, each its own label.
// h-9 as the forms' text and date inputs, so a row of filters lines up (a select is 2 px shorter by default).
// Neither a server nor a client module: the runs list's and the inbox's client forms and the audit log's
// server form render it alike.
import type { SelectHTMLAttributes } from "react";

type Props = Omit<SelectHTMLAttributes<HTMLSelectElement>, "id" | "children"> & {
  id: string;
  label: string;
  options: readonly string[];
  /** The empty value's text. */
  any?: string;
};

export function FilterSelect({ id, name, label, options, any = "Any", className = "input mt-1 h-9", ...select }: Props) {
  return (
    <div>
      <label className="label" htmlFor={id}>
        {label}
      </label>
      <select id={id} name={name} className={className} {...select}>
        <option value="">{any}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );
}
