// Who is calling an API route: a bearer token when the request has one (an invalid one is never
// silently downgraded to the session), otherwise the signed-in session.
import { db } from "../db/client.ts";
import { actorFromToken } from "../services/tokens.ts";
import type { Actor } from "./actor.ts";
import { UnauthorizedError } from "./errors.ts";
import { currentActor } from "./server.ts";

export async function requestActor(req: Request): Promise<Actor | null> {
  const auth = req.headers.get("authorization");
  if (auth) {
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    const actor = m ? await actorFromToken(db(), m[1]) : null;
    if (!actor) throw new UnauthorizedError("Invalid or revoked API token");
    return actor;
  }
  return currentActor();
}
