"use client";
import Link from "next/link";
import { useState } from "react";
import { PendingBadge } from "./pending-badge";
import { SavedViewLinks } from "./saved-views";
import { NAV_LINKS, type NavHref } from "./nav-links";
import { SignOutButton } from "./sign-out-button";

/** Links a phone's one-row header keeps in view (the rest, the saved views and the account behind Menu). */
const PHONE_ROW = 2;

/** The navigation; `user.links`: the hrefs of NAV_LINKS the user's role may open (components/nav.tsx decides). On a phone it is one
 * row: the name, the first links (the inbox with its count) and Menu, which opens the rest. */
export function NavBar({ user }: { user: { email: string; role: string; links: NavHref[] } | null }) {
  const [open, setOpen] = useState(false);
  const phoneHidden = open ? "" : "max-sm:hidden";
  return (
    <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
      <nav aria-label="Main" className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3 max-sm:gap-x-3 max-sm:py-1">
        <Link prefetch={false} href="/" className="font-semibold tracking-tight max-sm:py-2.5">
          AFK Console
        </Link>
        {user && (
          <ul className={`flex flex-wrap gap-x-4 gap-y-1 text-sm sm:flex-1 ${open ? "max-sm:order-3 max-sm:w-full" : "max-sm:flex-1"}`}>
            {NAV_LINKS.filter((l) => user.links.includes(l.href)).map((l, i) => (
              <li key={l.href} className={i < PHONE_ROW ? "" : phoneHidden}>
                <Link prefetch={false} className="inline-block hover:text-indigo-600 max-sm:py-2.5" href={l.href}>
                  {l.label}
                  {l.href === "/approvals" && <PendingBadge />}
                </Link>
              </li>
            ))}
            <SavedViewLinks className={phoneHidden} inbox={user.links.includes("/approvals")} />
          </ul>
        )}
        {user && (
          <button
            type="button"
            className="btn-secondary ml-auto sm:hidden"
            aria-expanded={open}
            aria-controls="nav-account"
            onClick={() => setOpen((o) => !o)}
          >
            {open ? "Close" : "Menu"}
          </button>
        )}
        {user && (
          <div
            id="nav-account"
            className={`ml-auto flex min-w-0 items-center gap-3 text-sm ${open ? "max-sm:order-4 max-sm:w-full" : "max-sm:hidden"}`}
          >
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
