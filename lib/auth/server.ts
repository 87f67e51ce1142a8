// Session helpers for pages, server actions and route handlers (Next.js only).
import "server-only";
import { getServerSession } from "next-auth";
import { forbidden, redirect } from "next/navigation";
import { db } from "../db/client.ts";
import { authOptions } from "./options.ts";
import { type Actor, actorFromClaims } from "./actor.ts";
import { type Needed, allows } from "../services/access.ts";

export async function currentActor(): Promise<Actor | null> {
  const session = await getServerSession(authOptions);
  const u = session?.user as { id?: string; sessionVersion?: number } | undefined;
  return actorFromClaims(db(), { sub: u?.id, sessionVersion: u?.sessionVersion });
}

// For pages: no session → /login; a session without the permission (any one of several) → a real 403 page.
export async function pageActor(needed?: Needed): Promise<Actor> {
  const actor = await currentActor();
  if (!actor) redirect("/login");
  if (needed && !allows(actor, needed)) forbidden();
  return actor;
}
