"use client";
// Saved views: the navigation lists the signed-in user's views with what each matches now, and a filter bar
// offers "Save view" for its current filters. The list is read after hydration (GET /api/views), so no
// page's HTML waits for the counts; a decision anywhere refreshes them.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import type { SavedViewDto } from "@/lib/dto";
import { api, fromAction } from "./api";
import { useLive } from "./live";
import { deleteViewAction, saveViewAction } from "./saved-view-actions";

const KEY = ["saved-views"];

// inbox: whether the reader follows the inbox's live events (a role that decides nothing may not).
function useSavedViews(inbox = false) {
  const qc = useQueryClient();
  const live = useLive({ inbox }, (e) => {
    if (e.type === "inbox") void qc.invalidateQueries({ queryKey: KEY });
  });
  return useQuery({
    queryKey: KEY,
    queryFn: () => api<{ views: SavedViewDto[] }>("/api/views"),
    refetchInterval: live && inbox ? 60_000 : 15_000,
  });
}

/** The user's saved views as navigation links, each with its count ("finance queue 3"). */
export function SavedViewLinks({ className = "", inbox }: { className?: string; inbox: boolean }) {
  const { data } = useSavedViews(inbox);
  if (!data?.views.length) return null;
  return data.views.map((v) => (
    <li key={v.id} className={className}>
      <Link prefetch={false} className="inline-block hover:text-indigo-600 max-sm:py-2.5" href={v.href} data-testid="saved-view-link">
        {v.name}
        <span
          className="ml-1 rounded-full bg-slate-200 px-1.5 py-0.5 text-xs font-semibold dark:bg-slate-700"
          data-testid="saved-view-count"
        >
          {v.count}
          {v.more ? "+" : ""}
          <span className="sr-only"> matching</span>
        </span>
      </Link>
    </li>
  ));
}

/** "Save view" for a filter bar: names its current filters; a view of the same filters can be deleted here. */
export function SaveView({ scope, filters }: { scope: SavedViewDto["scope"]; filters: Record<string, string> }) {
  const qc = useQueryClient();
  const { data } = useSavedViews();
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState("");
  const shown = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== ""));
  const same = data?.views.find((v) => v.scope === scope && JSON.stringify(sortKeys(v.filters)) === JSON.stringify(sortKeys(shown)));
  const save = useMutation({
    mutationFn: () => fromAction(saveViewAction({ name, scope, filters: shown })),
    onSuccess: async () => {
      setNaming(false);
      setName("");
      await qc.invalidateQueries({ queryKey: KEY });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => fromAction(deleteViewAction(id)),
    onSuccess: () => qc.invalidateQueries({ queryKey: KEY }),
  });
  if (same)
    return (
      <div className="flex items-end gap-2 text-sm">
        <span className="py-2">
          Saved as <strong>{same.name}</strong>
        </span>
        <button type="button" className="btn-secondary" disabled={remove.isPending} onClick={() => remove.mutate(same.id)}>
          Delete view
        </button>
      </div>
    );
  if (!naming)
    return (
      <button type="button" className="btn-secondary" disabled={!Object.keys(shown).length} onClick={() => setNaming(true)}>
        Save view
      </button>
    );
  return (
    // Not a form of its own: it sits inside a filter bar's form (forms do not nest); Enter in the name saves.
    <div className="flex flex-wrap items-end gap-2">
      <div>
        <label className="label" htmlFor={`view-name-${scope}`}>
          View name
        </label>
        <input
          id={`view-name-${scope}`}
          className="input mt-1 h-9 w-44"
          value={name}
          maxLength={60}
          placeholder="finance queue"
          // biome-ignore lint/a11y/noAutofocus: the field the Save view button just opened
          autoFocus
          onChange={(e) => setName(e.target.value)}
          onKeyDown={(e) => {
            if (e.key !== "Enter") return;
            e.preventDefault();
            if (name.trim()) save.mutate();
          }}
        />
      </div>
      <button type="button" className="btn-primary" disabled={save.isPending || !name.trim()} onClick={() => save.mutate()}>
        Save
      </button>
      <button type="button" className="btn-secondary" onClick={() => setNaming(false)}>
        Cancel
      </button>
      {save.error && (
        <p role="alert" className="w-full text-sm text-rose-700 dark:text-rose-400">
          {save.error.message}
        </p>
      )}
    </div>
  );
}

const sortKeys = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
