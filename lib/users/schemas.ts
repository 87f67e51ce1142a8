import { z } from "zod";
import { roleSchema } from "../auth/roles.ts";

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

export const newUserSchema = z.strictObject({
  email: z
    .email({ message: "Enter a valid email address" })
    .max(200)
    .transform((s) => s.toLowerCase()),
  name: z.string().trim().min(1, "Name is required").max(100),
  role: roleSchema,
  password: z.string().min(8, "At least 8 characters").max(200),
  groups: groupsSchema.optional(),
});
export type NewUser = z.infer<typeof newUserSchema>;

export const userPatchSchema = z
  .strictObject({
    role: roleSchema.optional(),
    disabled: z.boolean().optional(),
    groups: groupsSchema.optional(),
  })
  .refine((p) => p.role !== undefined || p.disabled !== undefined || p.groups !== undefined, {
    message: "Nothing to change: give role, disabled or groups",
    path: ["role"],
  });
