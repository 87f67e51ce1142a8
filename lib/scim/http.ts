// The SCIM routes' one wrapper (app/scim/v2): the caller is a SCIM token, bodies are JSON of at most 1 MB,
// and every refusal is a SCIM error body (RFC 7644 §3.12) with application/scim+json, never a 5xx for
// anything the client sent. An unexpected failure is a 500 in the same shape, logged without its stack.
import "server-only";
import type { AppContext } from "../context.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { failureOf } from "../http.ts";
import { log } from "../log.ts";
import { type ScimCaller, scimCaller } from "./auth.ts";
import { ScimError, scimErrorBody } from "./protocol.ts";

const MAX_BODY = 1_000_000;
const CONTENT_TYPE = "application/scim+json; charset=utf-8";

export type ScimCall<P> = {
  ctx: AppContext;
  caller: ScimCaller;
  params: P;
  query: URLSearchParams;
  /** The base of resource locations: <console>/scim/v2. */
  base: string;
  body: () => Promise<unknown>;
};

export const scimJson = (body: unknown, status = 200) =>
  new Response(status === 204 ? null : JSON.stringify(body), { status, headers: status === 204 ? {} : { "content-type": CONTENT_TYPE } });

async function readBody(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.length > MAX_BODY) throw new ScimError(413, `The body is larger than ${MAX_BODY} bytes`, "tooMany");
  try {
    return JSON.parse(text);
  } catch {
    throw new ScimError(400, "The body is not valid JSON", "invalidSyntax");
  }
}

export function scimRoute<P = Record<string, never>>(fn: (c: ScimCall<P>) => Promise<{ status?: number; body: unknown }>) {
  return async (req: Request, route: { params: Promise<P> }) => {
    try {
      const { appContext } = await import("../context.ts");
      const ctx = appContext();
      const caller = await scimCaller(ctx.db, req.headers.get("authorization"));
      const url = new URL(req.url);
      const { env } = await import("../env.ts");
      const origin = env().NEXTAUTH_URL?.replace(/\/+$/, "") ?? url.origin;
      const params = route?.params ? await route.params : ({} as P);
      const out = await fn({ ctx, caller, params, query: url.searchParams, base: `${origin}/scim/v2`, body: () => readBody(req) });
      return scimJson(out.body, out.status ?? 200);
    } catch (e) {
      return scimFailure(e);
    }
  };
}

export function scimFailure(e: unknown): Response {
  if (e instanceof ScimError) return scimJson(scimErrorBody(e), e.status);
  // Two creates of one userName or displayName at once: the database's unique index refused the second.
  if (isUniqueViolation(e)) return scimJson(scimErrorBody(new ScimError(409, "That resource exists already", "uniqueness")), 409);
  // The console's own typed errors (a transaction that expired: 503) keep their status.
  const f = failureOf(e);
  if (f.status >= 500 && f.status !== 503) log.error("unhandled SCIM error", { error: String(e).slice(0, 500) });
  return scimJson(scimErrorBody(new ScimError(f.status, f.status >= 500 && f.status !== 503 ? "Internal error" : f.body.error)), f.status);
}
