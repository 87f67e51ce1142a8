import Link from "next/link";
import { currentActor } from "@/lib/auth/server";
import { type Permission, can } from "@/lib/auth/roles";
import { SignOutButton } from "./sign-out-button";

const links: { href: string; label: string; permission: Permission }[] = [
  { href: "/approvals", label: "Approvals", permission: "approvals:decide" },
  { href: "/runs", label: "Runs", permission: "runs:read-all" },
  { href: "/runs/new", label: "Start a run", permission: "runs:start" },
  { href: "/admin/users", label: "Users", permission: "users:manage" },
];

export async function Nav() {
  const actor = await currentActor();
  return (
    <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
      <nav aria-label="Main" className="mx-auto flex max-w-6xl items-center gap-6 px-4 py-3">
        <Link href="/" className="font-semibold tracking-tight">
          AFK Console
        </Link>
        {actor && (
          <ul className="flex flex-1 gap-4 text-sm">
            {links
              .filter((l) => can(actor.role, l.permission))
              .map((l) => (
                <li key={l.href}>
                  <Link className="hover:text-indigo-600" href={l.href}>
                    {l.label}
                  </Link>
                </li>
              ))}
          </ul>
        )}
        {actor && (
          <div className="flex items-center gap-3 text-sm">
            <span data-testid="whoami">
              {actor.email} <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs dark:bg-slate-800">{actor.role}</span>
            </span>
            <SignOutButton />
          </div>
        )}
      </nav>
    </header>
  );
}
