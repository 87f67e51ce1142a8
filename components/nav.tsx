import { renderActor } from "@/lib/auth/server";
import { type Permission, can } from "@/lib/auth/roles";
import { NavBar } from "./nav-bar";
import { NAV_LINKS, type NavHref } from "./nav-links";

// Who may see each link; the links themselves (labels, markup) are the client's (./nav-bar.tsx, ./nav-links.ts), so every
// page's payload carries the signed-in user and the hrefs they may open rather than the navigation's markup.
const needs: Record<NavHref, Permission | Permission[]> = {
  "/approvals": "approvals:decide",
  "/runs": ["runs:read-all", "runs:start"],
  "/runs/new": "runs:start",
  "/audit": "runs:read-all",
  "/admin/users": "users:manage",
  "/admin/tokens": "users:manage",
  "/admin/notifications": "users:manage",
  "/settings": ["approvals:decide", "runs:read-all", "runs:start"],
};

const allowed = (role: Parameters<typeof can>[0], p: Permission | Permission[]) => (Array.isArray(p) ? p : [p]).some((x) => can(role, x));

export async function Nav() {
  const actor = await renderActor();
  const user = actor && {
    email: actor.email,
    role: actor.role,
    links: NAV_LINKS.map((l) => l.href).filter((href) => allowed(actor.role, needs[href])),
  };
  return <NavBar user={user} />;
}
