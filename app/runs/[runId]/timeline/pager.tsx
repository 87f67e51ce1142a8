"use client";
// The links to a run's first and next timeline pages. Until the browser has hydrated, the page shows only
// its first screen of rows (first-screen.ts), and "Next page" goes on from the last of them, so a reader
// without JavaScript reaches every checkpoint; once hydrated, every row of the page is there and it goes to
// the page after them.
import Link from "next/link";
import { useHydrated } from "@/components/use-hydrated";

export function TimelinePager({
  runId,
  later,
  next,
  afterScreen,
}: {
  runId: string;
  /** Whether this is a later page (then a link back to the first). */
  later: boolean;
  next: string | null;
  afterScreen: string | null;
}) {
  const cursor = useHydrated() ? next : (afterScreen ?? next);
  const base = `/runs/${encodeURIComponent(runId)}/timeline`;
  return (
    <div className="flex gap-3">
      {later && (
        <Link prefetch={false} className="btn-secondary" href={base}>
          ← First page
        </Link>
      )}
      {cursor && (
        <Link prefetch={false} className="btn-secondary" href={`${base}?${new URLSearchParams({ cursor })}`}>
          Next page →
        </Link>
      )}
    </div>
  );
}
