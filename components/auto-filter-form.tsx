"use client";
// A filter bar that applies as it changes, as the inbox's does: a choice or a date at once, typed text after
// a pause. Still a plain GET form: without JavaScript its Filter button (shown only then) submits it.
import { useRouter } from "next/navigation";
import { type ReactNode, useRef } from "react";
import { useHydrated } from "./use-hydrated";

export function AutoFilterForm({ action, label, children }: { action: string; label: string; children: ReactNode }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const apply = (form: HTMLFormElement) => {
    const qs = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (typeof v === "string" && v.trim() !== "") qs.set(k, v.trim());
    const s = qs.toString();
    router.replace(`${action}${s ? `?${s}` : ""}`, { scroll: false });
  };
  return (
    <form
      method="get"
      action={action}
      className="card flex flex-wrap items-end gap-3"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        apply(e.currentTarget);
      }}
      onChange={(e) => {
        const form = e.currentTarget;
        const el = e.target as unknown as HTMLInputElement;
        if (timer.current) clearTimeout(timer.current);
        const typed = el.tagName === "INPUT" && (el.type === "text" || el.type === "search" || el.type === "email");
        // A date input fires on each part typed; it applies once it holds a whole date (or none).
        if (el.type === "date" && el.value === "" && el.validity.badInput) return;
        timer.current = setTimeout(() => apply(form), typed ? 400 : 0);
      }}
    >
      {children}
      {!hydrated && (
        <button type="submit" className="btn-secondary">
          Filter
        </button>
      )}
    </form>
  );
}
