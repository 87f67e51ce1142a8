// Routing groups, the access vocabulary beside roles: what a user row stores, what a rule's `groups` name,
// what an IdP's group map grants. No server-only imports: the browser's forms share them.
import { z } from "zod";

// Routing groups: short lowercase names (a rule's `groups` name them), at most 20 per user.
export const groupNameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "A group name is lowercase letters, digits and dashes (at most 40)");
export const groupsSchema = z
  .array(groupNameSchema)
  .max(20, "At most 20 groups")
  .transform((g) => [...new Set(g)].sort());

/** The groups stored on a user row (a JSON array); anything unreadable counts as no group. */
export function storedGroups(text: string | null | undefined): string[] {
  try {
    const p = groupsSchema.safeParse(JSON.parse(text ?? "[]"));
    return p.success ? p.data : [];
  } catch {
    return [];
  }
}
