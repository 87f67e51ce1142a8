// Who is calling an API route (see lib/auth/caller.ts for the credential and its re-check).
import { db } from "../db/client.ts";
import type { Actor } from "./actor.ts";
import { requestCaller } from "./caller.ts";

export async function requestActor(req: Request): Promise<Actor | null> {
  return (await requestCaller(db(), req)).actor;
}
