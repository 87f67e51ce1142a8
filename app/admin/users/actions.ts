"use server";
import { revalidatePath } from "next/cache";
import { db } from "@/lib/db/client";
import { currentActor } from "@/lib/auth/server";
import { runAction } from "@/lib/http";
import { createUser, updateUser } from "@/lib/users/service";

export async function createUserAction(input: unknown) {
  const result = await runAction(async () => createUser(db(), await currentActor(), input));
  if (result.ok) revalidatePath("/admin/users");
  return result;
}

export async function updateUserAction(userId: string, input: unknown) {
  const result = await runAction(async () => updateUser(db(), await currentActor(), userId, input));
  if (result.ok) revalidatePath("/admin/users");
  return result;
}
