// Reading next-auth's session cookie (a JWE: the secret stretched by HKDF, then AES-GCM). A page asked for
// it three times per request (the proxy, the navigation, the page), each decrypting it anew, and the HKDF
// alone was the largest single item of a page's server time. What a token says is a pure function of the
// token and the secret, so a process keeps the claims of the tokens it decrypted (bounded; the most recent
// kept) and checks their expiry on every use exactly as next-auth's decode does (15 s of clock tolerance).
// Whether the user may still act is not part of this: the database says that on every request
// (lib/auth/actor.ts), so a disabled user or a signed-out session is refused at once as before.
import { type JWT, type JWTDecodeParams, decode, getToken } from "next-auth/jwt";

const CLOCK_TOLERANCE_S = 15;
const MAX_KEPT = 1000;

type Kept = Map<string, JWT>;
// One map per process, shared by Next's server bundles (the proxy and the pages hold separate copies of
// this module).
const KEY = Symbol.for("afk.sessionTokens");
const holder = globalThis as Record<symbol, Kept>;
if (!holder[KEY]) holder[KEY] = new Map();
const kept = holder[KEY];

const live = (claims: JWT) => typeof claims.exp !== "number" || claims.exp > Date.now() / 1000 - CLOCK_TOLERANCE_S;

/** next-auth's decode, keeping what it decrypted: usable as `jwt.decode` of next-auth's options and middleware. */
export async function decodeSessionToken(params: JWTDecodeParams): Promise<JWT | null> {
  const { token, secret, salt = "" } = params;
  if (!token) return null;
  const id = `${typeof secret === "string" ? secret : secret.toString("base64")}\0${salt}\0${token}`;
  const hit = kept.get(id);
  if (hit) {
    if (live(hit)) return hit;
    kept.delete(id);
  }
  const claims = await decode(params);
  if (!claims) return null;
  if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
  kept.set(id, Object.freeze(claims));
  return claims;
}

export type SessionTokenClaims = { sub: string; sessionVersion: number; exp?: number };

/** The session's claims from a request's cookies (a chunked cookie included), checked with the secret; null without a valid one. */
export async function sessionTokenClaims(
  cookies: Record<string, string>,
  opts: { secret: string; secureCookie: boolean },
): Promise<SessionTokenClaims | null> {
  // headers: {}: a page or a route takes its session from the cookie only (a bearer header is an API token).
  const jwt = await getToken({
    req: { cookies, headers: {} } as never,
    secret: opts.secret,
    secureCookie: opts.secureCookie,
    decode: decodeSessionToken,
  });
  if (!jwt?.sub) return null;
  return { sub: jwt.sub, sessionVersion: Number(jwt.sessionVersion ?? 0), exp: typeof jwt.exp === "number" ? jwt.exp : undefined };
}
