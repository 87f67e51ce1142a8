"use client";
// The checkpoint list is one form: its "from" and "to" radios pick two checkpoints, and the bar that says
// which two and holds "Compare selected" stays at the bottom of the screen while the list scrolls, so the
// button is always next to the selection.
//
// Each row has its radios twice: in the Compare column on a desktop, inside the row's Inspect on a phone
// (one shows, the other is display: none). One name in one form is one radio group, where only one of the
// two copies could be checked, so the phone's copies belong to a form of their own (PHONE_FORM, submitted
// by the phone's button); a pick checks its twin too, so the selection survives a window resized across
// the breakpoint.
//
// The radios are rendered by the browser once it has hydrated (checkpoint-row.tsx): four labelled radios
// were half of a row's HTML. Until then, and without JavaScript, the bar asks for the two checkpoints by
// number instead, in the same form (its GET gives the same ?a=&b=).
import { useState } from "react";
import { useHydrated } from "@/components/use-hydrated";

const PHONE_FORM = "compare-on-phone";

type Pick = { a?: string; b?: string };

const radios = (form: HTMLFormElement, name: string, extra = "") =>
  form.querySelectorAll<HTMLInputElement>(`input[type=radio][name=${name}]${extra}`);

/** Checks both copies of a pick. */
function checkTwins(form: HTMLFormElement, name: string, value: string) {
  for (const r of radios(form, name, `[value="${value}"]`)) r.checked = true;
}

export function CompareForm({ cursor, initial, children }: { cursor?: string; initial: Pick; children: React.ReactNode }) {
  const [pick, setPick] = useState(initial);
  const hydrated = useHydrated();
  const ready = pick.a !== undefined && pick.b !== undefined;
  return (
    <>
      <form
        method="get"
        className="card p-0"
        aria-label="Checkpoints to compare"
        onChange={(e) => {
          const t: EventTarget = e.target;
          if (t instanceof HTMLInputElement && t.type === "radio" && (t.name === "a" || t.name === "b")) {
            checkTwins(e.currentTarget, t.name, t.value);
            setPick((p) => ({ ...p, [t.name]: t.value }));
          }
        }}
      >
        {cursor && <input type="hidden" name="cursor" value={cursor} />}
        {children}
        <div className="sticky bottom-0 flex flex-wrap items-center gap-3 rounded-b-lg border-t border-slate-200 bg-white/95 px-3 py-2 dark:border-slate-800 dark:bg-slate-900/95">
          {hydrated ? (
            <>
              <span className="text-sm" data-testid="compare-selection" aria-live="polite">
                {ready
                  ? `Compare checkpoint ${pick.a} → ${pick.b}`
                  : pick.a !== undefined
                    ? `From checkpoint ${pick.a}: now pick a “to” checkpoint`
                    : pick.b !== undefined
                      ? `To checkpoint ${pick.b}: now pick a “from” checkpoint`
                      : "Pick a “from” and a “to” checkpoint to compare them"}
              </span>
              <button type="submit" className="btn-primary ml-auto max-md:hidden" disabled={!ready}>
                Compare selected
              </button>
              <button type="submit" form={PHONE_FORM} className="btn-primary ml-auto md:hidden" disabled={!ready}>
                Compare selected
              </button>
            </>
          ) : (
            <>
              <label className="cmp-seq">
                From checkpoint
                <input type="number" name="a" min={0} required defaultValue={initial.a} className="cmp-seq-input" />
              </label>
              <label className="cmp-seq">
                to
                <input type="number" name="b" min={0} required defaultValue={initial.b} className="cmp-seq-input" />
              </label>
              <button type="submit" className="btn-primary ml-auto">
                Compare
              </button>
            </>
          )}
        </div>
      </form>
      <form id={PHONE_FORM} method="get" hidden>
        {cursor && <input type="hidden" name="cursor" value={cursor} />}
      </form>
    </>
  );
}

/** A checkpoint's "from" and "to" radios: the desktop's copy (the Compare column) or the phone's (in Inspect). */
export function ComparePick({ seq, pick, phone = false }: { seq: number; pick: Pick; phone?: boolean }) {
  const radio = (name: "a" | "b", words: string) => (
    <label className={phone ? "cp-pick-phone" : "cp-pick"}>
      <input
        type="radio"
        name={name}
        value={seq}
        form={phone ? PHONE_FORM : undefined}
        defaultChecked={pick[name] === String(seq)}
        aria-label={`Compare ${words} checkpoint ${seq}`}
      />
      {words}
    </label>
  );
  return phone ? (
    <div className="cp-picks-phone">
      <span className="cp-picks-word">Compare</span>
      {radio("a", "from")}
      {radio("b", "to")}
    </div>
  ) : (
    <span className="cp-picks">
      {radio("a", "from")}
      {radio("b", "to")}
    </span>
  );
}
