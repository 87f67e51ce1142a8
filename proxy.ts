// Every page and route passes here: a fresh CSP nonce per request, and pages other than /login need a
// session (API routes answer 401/403 themselves, as JSON, never a redirect).
import { NextResponse, type NextRequest } from "next/server";
import { withAuth } from "next-auth/middleware";
import { env } from "@/lib/env";
import { contentSecurityPolicy } from "@/lib/security-headers";

function secured(req: NextRequest): NextResponse {
  const nonce = btoa(crypto.randomUUID());
  const csp = contentSecurityPolicy(nonce, env().NODE_ENV !== "production");
  const headers = new Headers(req.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", csp);
  const res = NextResponse.next({ request: { headers } });
  res.headers.set("content-security-policy", csp);
  return res;
}

const pages = withAuth((req) => secured(req), { pages: { signIn: "/login" }, secret: env().NEXTAUTH_SECRET });

const isPublic = (path: string) => path === "/login" || path.startsWith("/api/");

export function proxy(req: NextRequest, ev: Parameters<typeof pages>[1]) {
  return isPublic(req.nextUrl.pathname) ? secured(req) : pages(req as Parameters<typeof pages>[0], ev);
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico|favicon.svg|screenshots).*)"],
};
