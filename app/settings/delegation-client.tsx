"use client";
// A reviewer's deputy while away: between the two dates (the browser's time zone) the deputy is told of the
// reviewer's requests and may decide what the reviewer could. The server checks the deputy and the dates and
// names the field it refuses.
import { useMutation } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { fromAction } from "@/components/api";
import { When } from "@/components/when";
import type { DelegationDto } from "@/lib/dto";
import { clearDelegationAction, setDelegationAction } from "./actions";

// datetime-local's value (local time, to the minute) to and from an instant.
const local = (ms: number) => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
};
const iso = (v: string) => (v ? new Date(v).toISOString() : "");

export function DelegationClient({ initial }: { initial: DelegationDto | null }) {
  const [current, setCurrent] = useState(initial);
  const [deputy, setDeputy] = useState(initial?.deputy ?? "");
  // In the browser's time zone, which the server does not know: filled in once hydrated (the server's HTML
  // and the hydrating render leave them empty, so they match).
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  useEffect(() => {
    if (!initial) return;
    setFrom(local(initial.startsAtMs));
    setTo(local(initial.endsAtMs));
  }, [initial]);
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const fail = (e: Error & { field?: string }) => setError({ field: e.field, message: e.message });
  const save = useMutation({
    mutationFn: () => fromAction(setDelegationAction({ deputy, startsAt: iso(from), endsAt: iso(to) })),
    onSuccess: (d) => {
      setCurrent(d);
      setError(null);
    },
    onError: fail,
  });
  const clear = useMutation({
    mutationFn: () => fromAction(clearDelegationAction()),
    onSuccess: () => {
      setCurrent(null);
      setError(null);
    },
    onError: fail,
  });
  const msg = (field: string) =>
    error?.field === field && (
      <p role="alert" className="text-xs text-rose-700 dark:text-rose-300">
        {error.message}
      </p>
    );
  return (
    <form
      method="post"
      className="card space-y-3"
      aria-label="Deputy while away"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <h2 className="font-semibold">Deputy while away</h2>
      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="delegation-state">
        {current ? (
          <>
            {current.active ? "Now" : "From"} <When at={current.startsAtMs} /> to <When at={current.endsAtMs} />,{" "}
            <strong>{current.deputy}</strong> receives your notifications and may decide what you could.
          </>
        ) : (
          "Nobody stands in for you."
        )}
      </p>
      <label className="block text-sm">
        <span className="label">Deputy (their email)</span>
        <input className="input w-full" type="email" value={deputy} onChange={(e) => setDeputy(e.target.value)} />
        {msg("deputy")}
      </label>
      <div className="flex flex-wrap gap-3">
        <label className="text-sm">
          <span className="label">From</span>
          <input className="input" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
          {msg("startsAt")}
        </label>
        <label className="text-sm">
          <span className="label">To</span>
          <input className="input" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
          {msg("endsAt")}
        </label>
      </div>
      {error && !["deputy", "startsAt", "endsAt"].includes(error.field ?? "") && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-300">
          {error.message}
        </p>
      )}
      <div className="flex gap-2">
        <button type="submit" className="btn-primary" disabled={save.isPending}>
          Save deputy
        </button>
        {current && (
          <button type="button" className="btn-secondary" disabled={clear.isPending} onClick={() => clear.mutate()}>
            Remove
          </button>
        )}
      </div>
    </form>
  );
}
