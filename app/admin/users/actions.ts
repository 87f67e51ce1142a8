"use server";
import { revalidatePath } from "next/cache";
import { currentActor } from "@/lib/auth/server";
import { runAction } from "@/lib/http";
import { appContext } from "@/lib/context";
import { createUser, updateUser } from "@/lib/services/users";

export async function createUserAction(input: unknown) {
  const result = await runAction(async () => createUser(appContext(), await currentActor(), { body: input }));
  if (result.ok) revalidatePath("/admin/users");
  return result;
}

export async function updateUserAction(userId: string, input: unknown) {
  const result = await runAction(async () => updateUser(appContext(), await currentActor(), { userId, body: input }));
  if (result.ok) revalidatePath("/admin/users");
  return result;
}
