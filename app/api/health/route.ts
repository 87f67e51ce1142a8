import { NextResponse } from "next/server";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";

export const dynamic = "force-dynamic";

export async function GET() {
  try {
    await db().user.count();
    return NextResponse.json({ ok: true, database: env().databaseProvider });
  } catch {
    return NextResponse.json({ ok: false, database: env().databaseProvider, error: "database unreachable" }, { status: 503 });
  }
}
