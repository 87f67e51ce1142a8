// Every page passes here: a fresh CSP nonce per request, and pages other than /login need a session.
// API and SCIM routes do not: they answer 401/403 themselves, as JSON, never a redirect, and carry a fixed CSP
// (next.config.ts), so the proxy's cost (a third of a small API answer's server time) is not paid per call.
import { NextResponse, type NextRequest } from "next/server";
import { withAuth } from "next-auth/middleware";
import { env } from "@/lib/env";
import { contentSecurityPolicy } from "@/lib/security-headers";
import { decodeSessionToken } from "@/lib/auth/session-token";

// 128 random bits in base64 (24 characters): a page names its nonce on every script and link tag, about 30
// times, and base64 of a UUID's text was 48 characters for 122 bits.
function newNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

function secured(req: NextRequest): NextResponse {
  const nonce = newNonce();
  const csp = contentSecurityPolicy(nonce, env().NODE_ENV !== "production");
  const headers = new Headers(req.headers);
  headers.set("content-security-policy", csp);
  const res = NextResponse.next({ request: { headers } });
  res.headers.set("content-security-policy", csp);
  return res;
}

// The session cookie decrypted once per process (lib/auth/session-token.ts), not on every page load.
const pages = withAuth((req) => secured(req), {
  pages: { signIn: "/login" },
  secret: env().NEXTAUTH_SECRET,
  jwt: { decode: decodeSessionToken },
});

export function proxy(req: NextRequest, ev: Parameters<typeof pages>[1]) {
  return req.nextUrl.pathname === "/login" ? secured(req) : pages(req as Parameters<typeof pages>[0], ev);
}

export const config = {
  matcher: ["/((?!api/|scim/|_next/static|_next/image|favicon.ico|favicon.svg|screenshots).*)"],
};
