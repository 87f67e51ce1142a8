"use client";
// A moment as the reader thinks of it: their local time and how long ago, the UTC on hover. The server's
// HTML (and the first render, so hydration matches it) says the UTC time: only the browser knows its
// time zone and its now.
import { fmtAgo, fmtLocal, fmtTime } from "@/lib/format";
import { useHydrated } from "./use-hydrated";

export function When({ at, nowMs, ago = true }: { at: string | number | Date | null | undefined; nowMs?: number; ago?: boolean }) {
  const hydrated = useHydrated();
  if (at == null) return <>—</>;
  const utc = fmtTime(at);
  const iso = new Date(at).toISOString();
  if (!hydrated)
    return (
      <time dateTime={iso} title={utc}>
        {utc}
      </time>
    );
  return (
    <time dateTime={iso} title={`${utc} (UTC)`}>
      {fmtLocal(at)}
      {ago && ` · ${fmtAgo(at, nowMs ?? Date.now())}`}
    </time>
  );
}
