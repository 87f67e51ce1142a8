// GET /api/events: server-sent events for one browser tab. `run=<id>` follows a run (its changes and the
// text its model is streaming); `inbox=1` follows the approvals inbox and the pending badge. Events are
// hints to refetch (run, inbox) or text to show (delta); the page's data still comes from the API.
import "server-only";
import type { Actor } from "../auth/actor.ts";
import { ValidationError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import { authorize, visibleRun } from "../services/access.ts";
import type { LiveMessage } from "./bus.ts";

// Comments keep proxies from closing an idle stream; retry tells EventSource how soon to reconnect.
const PING_MS = 15_000;
const RETRY_MS = 2_000;

export async function liveEvents(ctx: AppContext, actor: Actor | null, query: Record<string, string>, signal: AbortSignal) {
  authorize(actor);
  const runId = query.run;
  const inbox = query.inbox === "1";
  if (!runId && !inbox) throw new ValidationError("run", "Say what to follow: run=<id> and/or inbox=1");
  if (query.inbox !== undefined && !inbox) throw new ValidationError("inbox", "inbox must be 1");
  if (runId) await visibleRun(ctx, actor, runId);
  if (inbox) authorize(actor, "approvals:decide");

  const enc = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (event: string, data: unknown) => {
        try {
          controller.enqueue(enc.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
        } catch {
          cleanup();
        }
      };
      controller.enqueue(enc.encode(`retry: ${RETRY_MS}\n: connected\n\n`));
      send("ready", { run: runId ?? null, inbox });
      // A tab that opens mid-stream gets the text so far.
      const sofar = runId ? ctx.live.liveText(runId) : null;
      if (sofar && runId) send("delta", { runId, step: sofar.step, offset: 0, text: sofar.text });
      const unsubscribe = ctx.live.subscribe((m: LiveMessage) => {
        if ((m.topic === "run" || m.topic === "delta") && m.runId === runId) send(m.topic, m);
        else if (m.topic === "inbox" && inbox) send("inbox", {});
      });
      const ping = setInterval(() => {
        try {
          controller.enqueue(enc.encode(": ping\n\n"));
        } catch {
          cleanup();
        }
      }, PING_MS);
      cleanup = () => {
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
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
