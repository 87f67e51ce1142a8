// A filter form's labelled fields: a select with the empty value ("Any") first, then the options, each its
// own label; and a text or date input. All h-9, so a row of filters lines up (a select is 2 px shorter by
// default). Neither a server nor a client module: the runs list's and the inbox's client forms and the
// audit log's server form render them alike.
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from "react";

const FIELD = "input mt-1 h-9";

function Labelled({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div>
      <label className="label" htmlFor={id}>
        {label}
      </label>
      {children}
    </div>
  );
}

type SelectProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, "id" | "children"> & {
  id: string;
  label: string;
  options: readonly string[];
  /** An option's text where it is not its value. */
  labels?: Readonly<Record<string, string>>;
  /** The empty value's text. */
  any?: string;
};

export function FilterSelect({ id, name, label, options, labels, any = "Any", className = FIELD, ...select }: SelectProps) {
  return (
    <Labelled id={id} label={label}>
      <select id={id} name={name} className={className} {...select}>
        <option value="">{any}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {labels?.[o] ?? o}
          </option>
        ))}
      </select>
    </Labelled>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "className"> & {
  id: string;
  label: string;
  /** A width utility (`w-56`), when the field should not take its natural width. */
  width?: string;
};

export function FilterInput({ id, name, label, width, ...input }: InputProps) {
  return (
    <Labelled id={id} label={label}>
      <input id={id} name={name} className={width ? `${FIELD} ${width}` : FIELD} {...input} />
    </Labelled>
  );
}
