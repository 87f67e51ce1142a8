"use client";
// The diff of two checkpoints (?a=&b=), from what diff-data.ts worked out on the server. Its cells' classes
// are diff-* utilities (app/globals.css).
import type { DiffData } from "./diff-data";

export function DiffView({ diff }: { diff: DiffData }) {
  return (
    <section className="card space-y-3" aria-label="Checkpoint diff">
      <h2 className="font-semibold">{`Checkpoint ${diff.from} → ${diff.to}`}</h2>
      {/* Long values (tool names, times) wrap at phone width instead of pushing the table out of its card. */}
      <div className="overflow-x-auto">
        <table className="table-afk" aria-label="Changed fields">
          <thead>
            <tr>
              <th className="w-px pr-0">
                <span className="sr-only">Changed?</span>
              </th>
              <th>Field</th>
              <th>From</th>
              <th>To</th>
            </tr>
          </thead>
          <tbody>
            {diff.fields.map((f) => (
              // A changed row: a strong tint, a thick edge and the word "changed", not a colour alone.
              <tr key={f.name} className={f.changed ? "diff-yes" : "diff-no"} data-changed={f.changed}>
                <td className={f.changed ? "diff-edge-yes" : "diff-edge-no"}>
                  {f.changed && (
                    <span className="diff-mark">
                      {/* A mark on a phone, the word where there is room; the word is read out either way. */}
                      <span aria-hidden="true" className="md:hidden">
                        ≠
                      </span>
                      <span className="max-md:sr-only">changed</span>
                    </span>
                  )}
                </td>
                <td className="diff-field">{f.name}</td>
                <td className="diff-val">{f.from}</td>
                <td className="diff-val">{f.to}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div>
        <h3 className="text-sm font-semibold">{`Messages added (${diff.messages.length})`}</h3>
        <ol className="mt-1 space-y-1" aria-label="Messages added">
          {diff.messages.map((m, i) => (
            <li key={i} className="text-sm">
              <span className="font-semibold">{m.role}</span>
              {m.calls ? <span className="font-mono text-xs">{` calls ${m.calls}`}</span> : null}
              <span className="block whitespace-pre-wrap break-words">{m.content}</span>
            </li>
          ))}
        </ol>
      </div>
      {diff.notes.map((n) => (
        <p key={n.seq} className="text-xs text-slate-600 dark:text-slate-400" data-testid="snapshot-note">
          {n.text}
        </p>
      ))}
    </section>
  );
}
