import { NextResponse } from "next/server";
import { db } from "@/lib/db/client";
import { currentActor } from "@/lib/auth/server";
import { createUser, listUsers } from "@/lib/users/service";
import { errorResponse, readJson } from "@/lib/http";

export async function GET() {
  try {
    return NextResponse.json({ users: await listUsers(db(), await currentActor()) });
  } catch (e) {
    return errorResponse(e);
  }
}

export async function POST(req: Request) {
  try {
    const actor = await currentActor();
    const user = await createUser(db(), actor, actor ? await readJson(req) : null);
    return NextResponse.json({ user }, { status: 201 });
  } catch (e) {
    return errorResponse(e);
  }
}
