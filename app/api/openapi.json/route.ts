import { NextResponse } from "next/server";
import { openApiDocument } from "@/lib/openapi";

export function GET(req: Request) {
  return NextResponse.json(openApiDocument(new URL(req.url).origin));
}
