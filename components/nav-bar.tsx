"use client";
import Link from "next/link";
import { PendingBadge } from "./pending-badge";
import { SavedViewLinks } from "./saved-views";
import { NAV_LINKS, type NavHref } from "./nav-links";
import { SignOutButton } from "./sign-out-button";

/** The navigation; `user.links`: the hrefs of NAV_LINKS the user's role may open (components/nav.tsx decides). */
export function NavBar({ user }: { user: { email: string; role: string; links: NavHref[] } | null }) {
  return (
    <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
      <nav aria-label="Main" className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link prefetch={false} href="/" className="font-semibold tracking-tight">
          AFK Console
        </Link>
        {user && (
          <ul className="order-3 flex w-full flex-wrap gap-x-4 gap-y-1 text-sm sm:order-none sm:w-auto sm:flex-1">
            {NAV_LINKS.filter((l) => user.links.includes(l.href)).map((l) => (
              <li key={l.href}>
                <Link prefetch={false} className="hover:text-indigo-600" href={l.href}>
                  {l.label}
                  {l.href === "/approvals" && <PendingBadge />}
                </Link>
              </li>
            ))}
            <SavedViewLinks />
          </ul>
        )}
        {user && (
          <div className="ml-auto flex min-w-0 items-center gap-3 text-sm">
            <span data-testid="whoami" className="truncate">
              {user.email} <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs dark:bg-slate-800">{user.role}</span>
            </span>
            <SignOutButton />
          </div>
        )}
      </nav>
    </header>
  );
}
