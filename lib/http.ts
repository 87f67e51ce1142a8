// Errors to HTTP answers (the mapping itself is lib/failure.ts): route handlers answer it, server actions
// return it, pages read it. Never leaks a stack trace.
import { NextResponse } from "next/server";
import { HttpError } from "./auth/errors.ts";
import type { Actor } from "./auth/actor.ts";
import type { ErrorBody } from "./dto.ts";
import { type Failure, failureOf } from "./failure.ts";

export { type Failure, failureOf };

// What a server failure leaves in the log: the kind of request and the error, not its stack.
function logged(f: Failure, e: unknown, what: string): Failure {
  if (f.status === 503)
    console.warn(JSON.stringify({ level: "warn", msg: "transaction expired; answered 503", error: String(e).slice(0, 300) }));
  else if (f.status >= 500) console.error(JSON.stringify({ level: "error", msg: `unhandled ${what} error`, error: String(e) }));
  return f;
}

export function errorResponse(e: unknown): NextResponse {
  const f = logged(failureOf(e), e, "route");
  return NextResponse.json(f.body, { status: f.status, headers: f.headers });
}

/** A server action's answer: its value, or the same status and body a route would have answered. */
export type ActionResult<T> = { ok: true; data: T } | ({ ok: false; status: number } & ErrorBody);

export async function runAction<T>(fn: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, data: await fn() };
  } catch (e) {
    const f = logged(failureOf(e), e, "action");
    return { ok: false, status: f.status, ...f.body };
  }
}

/** For pages: a service's 404 is the page's 404; anything else goes on to the error page. (next/navigation
 * is loaded here only when a page needs it: the CLI maps errors with this module outside Next, where it
 * cannot load.) */
export async function notFoundOr(e: unknown): Promise<never> {
  if (failureOf(e).status === 404) (await import("next/navigation")).notFound();
  throw e;
}

/** For pages that show a failure in place (a bad filter): its answer when it is one of `statuses` (any 4xx
 * by default); anything else is rethrown to the error page. */
export function expectedFailure(e: unknown, statuses?: number[]): ErrorBody {
  const f = failureOf(e);
  if (statuses ? !statuses.includes(f.status) : f.status >= 500) throw e;
  return f.body;
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

type RouteCtx<P> = { params: Promise<P> };
export type ApiCall<P> = {
  req: Request;
  actor: Actor | null;
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

/** What a runtime-protocol route sees: the runtime token's caller (null without one), params, query, body. */
export type RuntimeCall<P> = Omit<ApiCall<P>, "actor"> & {
  runtime: import("./auth/tokens.ts").RuntimeCaller | null;
  /** The caller the same token stands for now (null once revoked). */
  recheck: () => Promise<import("./auth/tokens.ts").RuntimeCaller | null>;
};

// The runtime protocol's routes (/api/v1/runtime/...): the caller is a runtime token, never a session or
// a user's token (a bearer that is not a live runtime token is a 401), and errors map as everywhere else.
export function runtimeRoute<P = Record<string, never>>(fn: (c: RuntimeCall<P>) => Promise<unknown>) {
  return async (req: Request, ctx: RouteCtx<P>) => {
    try {
      const { runtimeFromRequest } = await import("./auth/request.ts");
      const { runtime, recheck } = await runtimeFromRequest(req);
      const params = ctx?.params ? await ctx.params : ({} as P);
      const query: Record<string, string> = {};
      for (const [k, v] of new URL(req.url).searchParams) if (v !== "") query[k] = v;
      const body = async () => (runtime ? readJson(req) : null);
      const result = await fn({ req, runtime, recheck, params, query, body });
      if (result instanceof Response) return result;
      return NextResponse.json(result);
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
