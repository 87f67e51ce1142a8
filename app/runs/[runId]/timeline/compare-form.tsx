"use client";
// The checkpoint list is one form: its "from" and "to" radios pick two checkpoints, and the bar that says
// which two and holds "Compare selected" stays at the bottom of the screen while the list scrolls, so the
// button is always next to the selection.
import { useEffect, useRef, useState } from "react";

const checked = (form: HTMLFormElement, name: string) =>
  form.querySelector<HTMLInputElement>(`input[type=radio][name=${name}]:checked`)?.value;

export function CompareForm({
  cursor,
  initial,
  children,
}: {
  cursor?: string;
  initial: { a?: string; b?: string };
  children: React.ReactNode;
}) {
  const [pick, setPick] = useState(initial);
  const form = useRef<HTMLFormElement>(null);
  // A pick made before hydration (no change event reached React) counts too.
  useEffect(() => {
    const f = form.current;
    if (f) setPick((p) => ({ a: checked(f, "a") ?? p.a, b: checked(f, "b") ?? p.b }));
  }, []);
  const ready = pick.a !== undefined && pick.b !== undefined;
  return (
    <form
      ref={form}
      method="get"
      className="card p-0"
      aria-label="Checkpoints to compare"
      onChange={(e) => {
        const t: EventTarget = e.target;
        if (t instanceof HTMLInputElement && t.type === "radio" && (t.name === "a" || t.name === "b"))
          setPick((p) => ({ ...p, [t.name]: t.value }));
      }}
    >
      {cursor && <input type="hidden" name="cursor" value={cursor} />}
      {children}
      <div className="sticky bottom-0 flex flex-wrap items-center gap-3 rounded-b-lg border-t border-slate-200 bg-white/95 px-3 py-2 dark:border-slate-800 dark:bg-slate-900/95">
        <span className="text-sm" data-testid="compare-selection" aria-live="polite">
          {ready
            ? `Compare checkpoint ${pick.a} → ${pick.b}`
            : pick.a !== undefined
              ? `From checkpoint ${pick.a}: now pick a “to” checkpoint`
              : pick.b !== undefined
                ? `To checkpoint ${pick.b}: now pick a “from” checkpoint`
                : "Pick a “from” and a “to” checkpoint to compare them"}
        </span>
        <button type="submit" className="btn-primary ml-auto" disabled={!ready}>
          Compare selected
        </button>
      </div>
    </form>
  );
}
