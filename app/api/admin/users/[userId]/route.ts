import { NextResponse } from "next/server";
import { db } from "@/lib/db/client";
import { currentActor } from "@/lib/auth/server";
import { updateUser } from "@/lib/users/service";
import { errorResponse, readJson } from "@/lib/http";

export async function PATCH(req: Request, ctx: { params: Promise<{ userId: string }> }) {
  try {
    const actor = await currentActor();
    const { userId } = await ctx.params;
    const user = await updateUser(db(), actor, userId, actor ? await readJson(req) : null);
    return NextResponse.json({ user });
  } catch (e) {
    return errorResponse(e);
  }
}
