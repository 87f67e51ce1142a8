// GET /api/events: server-sent events for one browser tab. `run=<id>` follows a run (its changes and the
// text its model is streaming); `inbox=1` follows the approvals inbox and the pending badge. Events are
// hints to refetch (run, inbox) or text to show (delta); the page's data still comes from the API.
//
// A stream lives as long as its caller's access: nothing goes out without a check of the caller's
// credential (lib/auth/caller.ts) that began after the event arrived, so an event that comes after a
// token is revoked, a user is disabled or signed out everywhere, or their role or groups change is never
// sent, and the stream closes. The check runs at once when an access notice for the caller arrives from
// any instance (lib/auth/revocation.ts), for every batch of events, and with each keep-alive ping, which
// bounds a lost notice to PING_MS. A changed group closes the stream too: what a routed inbox shows
// depends on it, and the browser reconnects and refetches under the new groups.
import "server-only";
import type { Actor } from "../auth/actor.ts";
import type { Caller } from "../auth/caller.ts";
import { ValidationError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import { log } from "../log.ts";
import { allows, authorize, mayRead, visibleRun } from "./access.ts";
import type { LiveMessage } from "../live/bus.ts";
import { RUN } from "../runner/index.ts";

// Comments keep proxies from closing an idle stream and re-check the caller; retry tells EventSource how
// soon to reconnect. A stream its caller's access ended asks for a quick reconnect: under new groups the
// browser is back (and refetches, components/live.ts) within a second; with a dead credential it learns so.
export const PING_MS = 5_000;
const RETRY_MS = 2_000;
export const RETRY_AFTER_ACCESS_MS = 250;

type Out = { event: string; data: unknown } | { comment: string };

export async function liveEvents(ctx: AppContext, caller: Caller, query: Record<string, string>, signal: AbortSignal) {
  const actor = authorize(caller.actor);
  const runId = query.run;
  const inbox = query.inbox === "1";
  if (!runId && !inbox) throw new ValidationError("run", "Say what to follow: run=<id> and/or inbox=1");
  if (query.inbox !== undefined && !inbox) throw new ValidationError("inbox", "inbox must be 1");
  const run = runId ? await visibleRun(ctx, actor, runId) : null;
  if (inbox) authorize(actor, "approvals:decide");

  // Still the same person with the same role and groups, and still allowed to follow what they follow.
  const stillAllowed = async (): Promise<boolean> => {
    const now = await caller.recheck();
    if (!now || !sameAccess(now, actor)) return false;
    if (run && !mayRead(now, run)) return false;
    return !inbox || allows(now, "approvals:decide");
  };

  const enc = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let checking = false;
      let pending: Out[] = [];
      let recheck = false;
      const write = (o: Out) => {
        try {
          controller.enqueue(enc.encode("comment" in o ? `: ${o.comment}\n\n` : `event: ${o.event}\ndata: ${JSON.stringify(o.data)}\n\n`));
        } catch {
          cleanup();
        }
      };
      // Sends what waits, each batch after a check that began once it was waiting; one check at a time.
      const pump = async () => {
        if (checking || closed) return;
        checking = true;
        try {
          while (!closed && (pending.length > 0 || recheck)) {
            const batch = pending;
            pending = [];
            recheck = false;
            let ok: boolean | null = null;
            try {
              ok = await stillAllowed();
            } catch (e) {
              // Cannot tell (the database is unreachable): send nothing and ask again with what comes next
              // (at the latest the next ping). Events are hints; the pages poll meanwhile.
              log.warn("event stream held back events: its caller could not be checked", { error: String(e).slice(0, 200) });
            }
            if (closed) return;
            if (ok === false) {
              controller.enqueue(enc.encode(`retry: ${RETRY_AFTER_ACCESS_MS}\n\n`));
              return cleanup();
            }
            if (ok) for (const o of batch) write(o);
          }
        } finally {
          checking = false;
        }
      };
      const send = (o: Out) => {
        if (closed) return;
        pending.push(o);
        void pump();
      };
      const unsubscribe = ctx.live.subscribe((m: LiveMessage) => {
        if ((m.topic === "run" || m.topic === "delta") && m.runId === runId) send({ event: m.topic, data: m });
        else if (m.topic === "inbox" && inbox) send({ event: "inbox", data: {} });
        // A cancelled run's approvals leave every inbox (the worker that ends it tells only the run's pages).
        else if (m.topic === "run" && m.state === RUN.cancelled && inbox) send({ event: "inbox", data: {} });
        else if (m.topic === "access" && m.actorId === actor.id && !closed) {
          recheck = true;
          void pump();
        }
      });
      controller.enqueue(enc.encode(`retry: ${RETRY_MS}\n: connected\n\n`));
      // Checked once more after subscribing, so a change between the request's check and now is seen.
      send({ event: "ready", data: { run: runId ?? null, inbox } });
      // A tab that opens mid-stream gets the text so far.
      const sofar = runId ? ctx.live.liveText(runId) : null;
      if (sofar && runId) send({ event: "delta", data: { runId, step: sofar.step, offset: 0, text: sofar.text } });
      const ping = setInterval(() => send({ comment: "ping" }), PING_MS);
      cleanup = () => {
        if (closed) return;
        closed = true;
        pending = [];
        unsubscribe();
        clearInterval(ping);
        try {
          controller.close();
        } catch {}
      };
      signal.addEventListener("abort", () => cleanup(), { once: true });
    },
    cancel() {
      cleanup();
    },
  });
  return eventStreamResponse(stream);
}

/** A server-sent event stream's response: never cached or transformed, not buffered by a proxy. */
export function eventStreamResponse(stream: ReadableStream<Uint8Array>): Response {
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}

function sameAccess(now: Actor, then: Actor): boolean {
  const a = [...(now.groups ?? [])].sort().join("\n");
  const b = [...(then.groups ?? [])].sort().join("\n");
  return now.id === then.id && now.role === then.role && a === b;
}
