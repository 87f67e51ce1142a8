// Ending someone's access at once, everywhere. Every request reads from the database whether its caller
// may still act (lib/auth/actor.ts, the token look-up), so the next request is refused as soon as the
// change commits; what is left are event streams opened before it. This tells the streams of that actor
// on every instance (LISTEN/NOTIFY on PostgreSQL) to check their caller again now: lib/services/live-events.ts.
import type { Db } from "../db/client.ts";
import { endSessions } from "../db/accounts.ts";
import type { LiveBus } from "../live/bus.ts";

/** After a change to the actor's access has committed: a user's id, or "token:<id>" for a service token. */
export function accessChanged(live: LiveBus, actorId: string): void {
  live.publish({ topic: "access", actorId });
}

/** Calls fn whenever a change to the actor's access commits (on any instance); returns the unsubscribe. */
export function onAccessChanged(live: LiveBus, actorId: string, fn: () => void): () => void {
  return live.subscribe((m) => {
    if (m.topic === "access" && m.actorId === actorId) fn();
  });
}

/** The id an API token's holder has as an actor: its user's, or its own as a service identity. */
export const tokenActorId = (token: { id: string; userId: string | null }) => token.userId ?? `token:${token.id}`;

/** Ends every session of the user (every browser, every instance: the session epoch moves on) and closes their open streams. */
export async function signOutEverywhere(ctx: { db: Db; live: LiveBus }, userId: string): Promise<void> {
  await endSessions(ctx.db, userId);
  accessChanged(ctx.live, userId);
}
