import Link from "next/link";
import { renderActor } from "@/lib/auth/server";
import { type Permission, can } from "@/lib/auth/roles";
import { SignOutButton } from "./sign-out-button";
import { PendingBadge } from "./pending-badge";

const links: { href: string; label: string; permission: Permission | Permission[] }[] = [
  { href: "/approvals", label: "Approvals", permission: "approvals:decide" },
  { href: "/runs", label: "Runs", permission: ["runs:read-all", "runs:start"] },
  { href: "/runs/new", label: "Start a run", permission: "runs:start" },
  { href: "/audit", label: "Audit", permission: "runs:read-all" },
  { href: "/admin/users", label: "Users", permission: "users:manage" },
  { href: "/admin/tokens", label: "API tokens", permission: "users:manage" },
];

const allowed = (role: Parameters<typeof can>[0], p: Permission | Permission[]) => (Array.isArray(p) ? p : [p]).some((x) => can(role, x));

export async function Nav() {
  const actor = await renderActor();
  return (
    <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
      <nav aria-label="Main" className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link prefetch={false} href="/" className="font-semibold tracking-tight">
          AFK Console
        </Link>
        {actor && (
          <ul className="order-3 flex w-full flex-wrap gap-x-4 gap-y-1 text-sm sm:order-none sm:w-auto sm:flex-1">
            {links
              .filter((l) => allowed(actor.role, l.permission))
              .map((l) => (
                <li key={l.href}>
                  <Link prefetch={false} className="hover:text-indigo-600" href={l.href}>
                    {l.label}
                    {l.href === "/approvals" && <PendingBadge />}
                  </Link>
                </li>
              ))}
          </ul>
        )}
        {actor && (
          <div className="ml-auto flex min-w-0 items-center gap-3 text-sm">
            <span data-testid="whoami" className="truncate">
              {actor.email} <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs dark:bg-slate-800">{actor.role}</span>
            </span>
            <SignOutButton />
          </div>
        )}
      </nav>
    </header>
  );
}
