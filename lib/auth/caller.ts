// Who is calling an API route: a bearer token when the request has one (an invalid one is never silently
// downgraded to the session), otherwise the session cookie. Also how to ask again later with the same
// credential: an open event stream re-checks its caller on every event it would send (lib/services/live-events.ts),
// so a token revoked, a user disabled or signed out everywhere, or a role changed ends it.
import type { Db } from "../db/client.ts";
import { env } from "../env.ts";
import { actorFromToken } from "./tokens.ts";
import { type Actor, actorFromClaims } from "./actor.ts";
import { UnauthorizedError } from "./errors.ts";
import { type SessionTokenClaims, sessionTokenClaims } from "./session-token.ts";

export type Caller = {
  actor: Actor | null;
  /** The actor the same credential stands for now; null once it no longer works. */
  recheck(): Promise<Actor | null>;
};

export async function requestCaller(db: Db, req: Request): Promise<Caller> {
  const auth = req.headers.get("authorization");
  if (auth) {
    const token = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
    const actor = token ? await actorFromToken(db, token) : null;
    if (!token || !actor) throw new UnauthorizedError("Invalid or revoked API token");
    return { actor, recheck: () => actorFromToken(db, token) };
  }
  const claims = await sessionClaims(req);
  // A session outlives nothing: past its expiry it stands for nobody, even on a stream opened before.
  const recheck = () => (claims && (claims.exp ?? 0) * 1000 > Date.now() ? actorFromClaims(db, claims) : Promise.resolve(null));
  return { actor: await recheck(), recheck };
}

/** The session's claims from its cookie (next-auth's JWT, decrypted and checked with NEXTAUTH_SECRET). */
async function sessionClaims(req: Request): Promise<SessionTokenClaims | null> {
  const cookies: Record<string, string> = {};
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i <= 0) continue;
    try {
      cookies[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {}
  }
  return sessionTokenClaims(cookies, sessionCookieOptions());
}

/** The secret and cookie name next-auth uses for this deployment's session cookie. */
export function sessionCookieOptions(): { secret: string; secureCookie: boolean } {
  const e = env();
  return { secret: e.NEXTAUTH_SECRET, secureCookie: e.NEXTAUTH_URL?.startsWith("https://") ?? false };
}
