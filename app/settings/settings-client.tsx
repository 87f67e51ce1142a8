"use client";
import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { fromAction } from "@/components/api";
import { useHydrated } from "@/components/use-hydrated";
import type { NotifySettingsView } from "@/lib/services/notifications";
import { saveNotifySettingsAction } from "./actions";

export function SettingsClient({ initial }: { initial: NotifySettingsView }) {
  const [p, setP] = useState(initial.preference);
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const [saved, setSaved] = useState(false);
  // Only the browser knows its notification permission: the server's HTML and the hydrating render say
  // nothing of it (they must match), the next render reads it.
  const hydrated = useHydrated();
  const [asked, setAsked] = useState<NotificationPermission | null>(null);
  const permission = !hydrated ? null : (asked ?? (typeof Notification === "undefined" ? "unsupported" : Notification.permission));
  const save = useMutation({
    mutationFn: () => fromAction(saveNotifySettingsAction(p)),
    onSuccess: (s) => {
      setP(s.preference);
      setError(null);
      setSaved(true);
    },
    onError: (e: Error & { field?: string }) => {
      setSaved(false);
      setError({ field: e.field, message: e.message });
    },
  });
  const quiet = p.quietStart !== null;
  return (
    <form
      method="post"
      className="card space-y-4"
      aria-label="Notification settings"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <fieldset>
        <legend className="label">Channels</legend>
        {initial.channels.length === 0 && (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            No channel is configured on this console (see docs/notifications.md).
          </p>
        )}
        {initial.channels.map((c) => (
          <label key={c} className="mr-4 inline-flex items-center gap-1 text-sm">
            <input
              type="checkbox"
              checked={p.channels.includes(c)}
              onChange={(e) => setP({ ...p, channels: e.target.checked ? [...p.channels, c] : p.channels.filter((x) => x !== c) })}
            />
            {c}
          </label>
        ))}
      </fieldset>
      <div>
        <label className="label" htmlFor="digest">
          When
        </label>
        <select
          id="digest"
          className="input mt-1"
          value={p.digestMinutes}
          onChange={(e) => setP({ ...p, digestMinutes: Number(e.target.value) })}
          aria-invalid={error?.field === "digestMinutes"}
        >
          <option value={0}>Immediately</option>
          {[15, 30, 60, 240, 1440].map((m) => (
            <option key={m} value={m}>
              One digest every {m < 60 ? `${m} minutes` : m === 60 ? "hour" : m === 1440 ? "day" : `${m / 60} hours`}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="space-y-2">
        <label className="inline-flex items-center gap-1 text-sm">
          <input
            type="checkbox"
            checked={quiet}
            onChange={(e) => setP({ ...p, quietStart: e.target.checked ? "20:00" : null, quietEnd: e.target.checked ? "08:00" : null })}
          />
          Quiet hours (messages wait until they end)
        </label>
        {quiet && (
          <div className="flex flex-wrap items-end gap-3">
            <div>
              <label className="label" htmlFor="quiet-start">
                From
              </label>
              <input
                id="quiet-start"
                type="time"
                className="input mt-1"
                value={p.quietStart ?? ""}
                onChange={(e) => setP({ ...p, quietStart: e.target.value })}
              />
            </div>
            <div>
              <label className="label" htmlFor="quiet-end">
                Until
              </label>
              <input
                id="quiet-end"
                type="time"
                className="input mt-1"
                value={p.quietEnd ?? ""}
                onChange={(e) => setP({ ...p, quietEnd: e.target.value })}
                aria-invalid={error?.field === "quietEnd"}
              />
            </div>
            <div>
              <label className="label" htmlFor="tz">
                Time zone
              </label>
              <input
                id="tz"
                className="input mt-1"
                value={p.timeZone}
                onChange={(e) => setP({ ...p, timeZone: e.target.value })}
                aria-invalid={error?.field === "timeZone"}
              />
            </div>
          </div>
        )}
      </fieldset>
      <div className="text-sm">
        Desktop notifications while the console is open:{" "}
        {permission === null ? (
          "…"
        ) : permission === "granted" ? (
          "on"
        ) : permission === "unsupported" ? (
          "not supported by this browser"
        ) : (
          <button type="button" className="btn-secondary" onClick={() => void Notification.requestPermission().then(setAsked)}>
            Allow
          </button>
        )}
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-rose-300">
          {error.message}
        </p>
      )}
      {saved && <p className="text-sm text-green-700 dark:text-emerald-300">Saved.</p>}
      <button type="submit" className="btn btn-primary" disabled={save.isPending}>
        Save
      </button>
    </form>
  );
}
