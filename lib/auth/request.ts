// Who is calling an API route (see lib/auth/caller.ts for the credential and its re-check).
import { db } from "../db/client.ts";
import { type RuntimeCaller, runtimeFromToken } from "./tokens.ts";
import type { Actor } from "./actor.ts";
import { requestCaller } from "./caller.ts";
import { UnauthorizedError } from "./errors.ts";

export async function requestActor(req: Request): Promise<Actor | null> {
  return (await requestCaller(db(), req)).actor;
}

// The runtime protocol's caller: a live runtime token, nothing else (no session, no user's token); recheck
// asks again with the same token (a stream ends once it is revoked).
export async function runtimeFromRequest(req: Request): Promise<{ runtime: RuntimeCaller; recheck: () => Promise<RuntimeCaller | null> }> {
  const token = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
  const recheck = () => (token ? runtimeFromToken(db(), token) : Promise.resolve(null));
  const runtime = await recheck();
  if (!runtime) throw new UnauthorizedError("A live runtime token is required (Authorization: Bearer <token>)");
  return { runtime, recheck };
}
