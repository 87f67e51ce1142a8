import { z } from "zod";
import { roleSchema } from "../auth/roles.ts";

export const newUserSchema = z.strictObject({
  email: z
    .email({ message: "Enter a valid email address" })
    .max(200)
    .transform((s) => s.toLowerCase()),
  name: z.string().trim().min(1, "Name is required").max(100),
  role: roleSchema,
  password: z.string().min(8, "At least 8 characters").max(200),
});
export type NewUser = z.infer<typeof newUserSchema>;

export const userPatchSchema = z
  .strictObject({
    role: roleSchema.optional(),
    disabled: z.boolean().optional(),
  })
  .refine((p) => p.role !== undefined || p.disabled !== undefined, { message: "Nothing to change: give role or disabled", path: ["role"] });
