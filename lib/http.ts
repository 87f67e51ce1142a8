// Maps typed errors to JSON responses ({error, field?}) and action results; never leaks a stack trace.
import { NextResponse } from "next/server";
import { HttpError } from "./auth/errors.ts";

export function errorResponse(e: unknown): NextResponse {
  if (e instanceof HttpError) {
    const current = "current" in e ? { current: (e as { current: unknown }).current } : {};
    return NextResponse.json({ error: e.message, ...(e.field ? { field: e.field } : {}), ...current }, { status: e.status });
  }
  console.error(JSON.stringify({ level: "error", msg: "unhandled route error", error: String(e) }));
  return NextResponse.json({ error: "Internal error" }, { status: 500 });
}

export async function readJson(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.length > 1_000_000) throw new HttpError(413, "Body too large");
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "Body is not valid JSON", "body");
  }
}

export type ActionResult<T> = { ok: true; data: T } | { ok: false; status: number; error: string; field?: string };

export async function runAction<T>(fn: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, data: await fn() };
  } catch (e) {
    if (e instanceof HttpError) return { ok: false, status: e.status, error: e.message, field: e.field };
    console.error(JSON.stringify({ level: "error", msg: "unhandled action error", error: String(e) }));
    return { ok: false, status: 500, error: "Internal error" };
  }
}
