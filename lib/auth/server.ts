// Session helpers for pages, server actions and route handlers (Next.js only).
import "server-only";
import { cookies } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { cache } from "react";
import { db } from "../db/client.ts";
import { type Actor, actorFromClaims } from "./actor.ts";
import { sessionCookieOptions } from "./caller.ts";
import { sessionTokenClaims } from "./session-token.ts";
import { type Needed, allows } from "./roles.ts";

/** The signed-in user, read from the session cookie and checked against the database now. */
export async function currentActor(): Promise<Actor | null> {
  const jar = await cookies();
  const claims = await sessionTokenClaims(Object.fromEntries(jar.getAll().map((c) => [c.name, c.value])), sessionCookieOptions());
  return actorFromClaims(db(), claims);
}

/**
 * The same, once per page render: the navigation and the page ask for it, and each asking decrypted the
 * cookie and read the user again. Server actions call currentActor itself (their checks are never shared).
 */
export const renderActor = cache(currentActor);

// For pages: no session → /login; a session without the permission (any one of several) → a real 403 page.
export async function pageActor(needed?: Needed): Promise<Actor> {
  const actor = await renderActor();
  if (!actor) redirect("/login");
  if (needed && !allows(actor, needed)) forbidden();
  return actor;
}
