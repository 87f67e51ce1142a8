"use client";
// The pages of not-found.tsx, forbidden.tsx and unauthorized.tsx, as client components: authInterrupts
// (next.config.ts) puts all three in every page's root layout, and a page's payload then names these
// instead of carrying their markup. One module, so one script for the three.
import { HTTPAccessErrorFallback } from "next/dist/client/components/http-access-fallback/error-fallback";

// Next's own 404 and 401 pages.
export const NotFoundPage = () => <HTTPAccessErrorFallback status={404} message="This page could not be found." />;
export const UnauthorizedPage = () => <HTTPAccessErrorFallback status={401} message="You're not authorized to access this page." />;

export function ForbiddenPage() {
  return (
    <div className="card max-w-lg">
      <h1 className="text-lg font-semibold">403 — not allowed</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">Your role may not open this page.</p>
    </div>
  );
}
