import { z } from "zod";

export const ROLES = ["admin", "reviewer", "operator", "submitter"] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

// A token's role: a user's role, or "runtime": an external agent runtime's token, which acts only through
// the runtime protocol (/api/v1/runtime) and only on the runs it registered; it is no actor anywhere else.
export const RUNTIME_ROLE = "runtime";
// "scim": an IdP's provisioning token, which acts only on /scim/v2 (lib/scim); no actor anywhere else.
export const SCIM_ROLE = "scim";
export const TOKEN_ROLES = [...ROLES, RUNTIME_ROLE, SCIM_ROLE] as const;
export const tokenRoleSchema = z.enum(TOKEN_ROLES);

// What each role may do. admin may do everything.
export type Permission = "users:manage" | "approvals:decide" | "runs:read-all" | "runs:operate" | "runs:start";

const grants: Record<Role, Permission[]> = {
  admin: ["users:manage", "approvals:decide", "runs:read-all", "runs:operate", "runs:start"],
  reviewer: ["approvals:decide", "runs:read-all"],
  operator: ["runs:read-all", "runs:operate"],
  submitter: ["runs:start"],
};

export function can(role: Role, permission: Permission): boolean {
  return grants[role].includes(permission);
}

/** One permission, or several of which any one will do. */
export type Needed = Permission | readonly Permission[];

/** Whether the actor holds the permission (any one of several). */
export function allows(actor: { role: Role }, needed: Needed): boolean {
  return typeof needed === "string" ? can(actor.role, needed) : needed.some((p) => can(actor.role, p));
}

export const LANDING: Record<Role, string> = {
  admin: "/admin/users",
  reviewer: "/approvals",
  operator: "/runs",
  submitter: "/runs/new",
};
