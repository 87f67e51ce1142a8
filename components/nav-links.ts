// The navigation's links, in order: the server picks those a role may open (components/nav.tsx), the
// client draws them (components/nav-bar.tsx).
export const NAV_LINKS = [
  { href: "/approvals", label: "Approvals" },
  { href: "/runs", label: "Runs" },
  { href: "/runs/new", label: "Start a run" },
  { href: "/audit", label: "Audit" },
  { href: "/admin/users", label: "Users" },
  { href: "/admin/tokens", label: "API tokens" },
  { href: "/admin/notifications", label: "Notifications" },
  { href: "/settings", label: "Settings" },
] as const;

export type NavHref = (typeof NAV_LINKS)[number]["href"];
