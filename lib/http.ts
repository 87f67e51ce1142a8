// Maps typed errors to JSON responses ({error, field?}) and action results; never leaks a stack trace.
import { NextResponse } from "next/server";
import { CorruptRecordError, HttpError } from "./auth/errors.ts";
import { AgentCheckpointCorruptionError } from "./runner/index.ts";

// An unreadable record that reached a route unhandled is still that run's problem, not a server error.
const asHttp = (e: unknown) => (e instanceof AgentCheckpointCorruptionError ? new CorruptRecordError(e.message, e.key ?? null) : e);

// Prisma's "transaction expired" (P2028): the process stalled or the database was too slow past the
// transaction's timeout, and everything in it rolled back. Nothing happened; the caller may retry.
const expiredTransaction = (e: unknown) => (e as { code?: string } | null)?.code === "P2028";
const RETRY_LATER = "The database did not finish this request in time and nothing was changed; try again";

export function errorResponse(err: unknown): NextResponse {
  if (expiredTransaction(err)) {
    console.warn(JSON.stringify({ level: "warn", msg: "transaction expired; answered 503", error: String(err).slice(0, 300) }));
    return NextResponse.json({ error: RETRY_LATER }, { status: 503, headers: { "retry-after": "1" } });
  }
  const e = asHttp(err);
  if (e instanceof CorruptRecordError) return NextResponse.json(e.body(), { status: 409 });
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

// An action's answer: its data, or the error a route would answer with (status, message, the field, and
// for a decision that lost a race the approval's current state).
export type ActionResult<T> =
  | { ok: true; data: T }
  | { ok: false; status: number; error: string; field?: string; key?: string | null; current?: unknown };

export async function runAction<T>(fn: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, data: await fn() };
  } catch (err) {
    if (expiredTransaction(err)) return { ok: false, status: 503, error: RETRY_LATER };
    const e = asHttp(err);
    if (e instanceof CorruptRecordError)
      return { ok: false, status: 409, error: `AgentCheckpointCorruptionError: ${e.message}`, key: e.key };
    if (e instanceof HttpError) {
      const current = "current" in e ? { current: (e as { current: unknown }).current } : {};
      return { ok: false, status: e.status, error: e.message, ...(e.field ? { field: e.field } : {}), ...current };
    }
    console.error(JSON.stringify({ level: "error", msg: "unhandled action error", error: String(e) }));
    return { ok: false, status: 500, error: "Internal error" };
  }
}

type RouteCtx<P> = { params: Promise<P> };
export type ApiCall<P> = {
  req: Request;
  actor: import("./auth/actor.ts").Actor | null;
  params: P;
  query: Record<string, string>;
  body: () => Promise<unknown>;
};

// One wrapper for every API route: resolves the caller (bearer token or session), parses the query
// string, reads a JSON body only when asked (and only for a known caller), and maps errors to JSON.
export function apiRoute<P = Record<string, never>>(fn: (c: ApiCall<P>) => Promise<unknown>, opts: { status?: number } = {}) {
  return async (req: Request, ctx: RouteCtx<P>) => {
    try {
      refuseCrossSite(req);
      const { requestActor } = await import("./auth/request.ts");
      const actor = await requestActor(req);
      const params = ctx?.params ? await ctx.params : ({} as P);
      const query: Record<string, string> = {};
      for (const [k, v] of new URL(req.url).searchParams) if (v !== "") query[k] = v;
      const body = async () => (actor ? readJson(req) : null);
      const result = await fn({ req, actor, params, query, body });
      // A handler that shapes its own response (headers, 304) returns it as is.
      if (result instanceof Response) return result;
      return NextResponse.json(result, { status: opts.status ?? 200 });
    } catch (e) {
      return errorResponse(e);
    }
  };
}

// A session cookie rides along on requests other sites make the browser send; those must not act.
// Browsers mark them (Origin, Sec-Fetch-Site); bearer-token calls carry no ambient credentials.
export function refuseCrossSite(req: Request) {
  if (req.method === "GET" || req.method === "HEAD" || req.headers.get("authorization")) return;
  const origin = req.headers.get("origin");
  const site = req.headers.get("sec-fetch-site");
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  let sameOrigin = true;
  if (origin) {
    try {
      sameOrigin = new URL(origin).host === host;
    } catch {
      sameOrigin = false;
    }
  }
  if (!sameOrigin || (site !== null && site !== "same-origin" && site !== "none")) throw new HttpError(403, "Cross-origin request refused");
}
