// The people tests act as. Each test file used to define its own; these are the common ones, and actor()
// makes another with the same shape (id u-<handle>, email <handle>@example.com).
import type { Actor } from "@/lib/auth/actor";
import type { Role } from "@/lib/auth/roles";

export const actor = (role: Role, handle: string, extra: Partial<Actor> = {}): Actor => ({
  id: `u-${handle}`,
  email: `${handle}@example.com`,
  name: handle.toUpperCase(),
  role,
  ...extra,
});

export const sub: Actor = { id: "u-sub", email: "sub@example.com", name: "S", role: "submitter" };
export const rev: Actor = { id: "u-rev", email: "rev@example.com", name: "R", role: "reviewer" };
export const op: Actor = { id: "u-op", email: "op@example.com", name: "O", role: "operator" };
export const admin: Actor = { id: "u-admin", email: "admin@example.com", name: "A", role: "admin" };
