// GET /api/v1/runtime/runs/{runId}/decisions/stream: a run's decisions as server-sent events, for a
// runtime that keeps a connection open instead of long-polling. Each `decision` event's id is its cursor
// (EventSource sends it back as Last-Event-ID on a reconnect, so nothing is missed or sent twice); a
// `state` event says the run's state when it changes, and the stream ends once the run is over. The live
// bus wakes it (LISTEN/NOTIFY across instances on PostgreSQL); decisions are still claimed one by one. It
// lives as long as its token: the revocation's access notice ends it at once, and nothing read after the
// revocation goes out.
import "server-only";
import type { AppContext } from "../context.ts";
import { onAccessChanged } from "../auth/revocation.ts";
import { type RuntimeCaller, runtimeActorId } from "../auth/tokens.ts";
import { listDecisions } from "./runtime-protocol.ts";
import { isTerminal } from "../runner/index.ts";
import { eventStreamResponse } from "./live-events.ts";

const PING_MS = 15_000;
const SAFETY_POLL_MS = 5_000;

type StreamInput = {
  runId: string;
  query: Record<string, string>;
  lastEventId: string | null;
  signal: AbortSignal;
  /** The caller the token stands for now: the stream ends once it is revoked. */
  recheck: () => Promise<RuntimeCaller | null>;
};

export async function runtimeDecisionStream(ctx: AppContext, runtime: RuntimeCaller | null, input: StreamInput) {
  let cursor = input.lastEventId || input.query.cursor || null;
  // Checks the caller, the run and the cursor before the stream starts (4xx as JSON, not an event).
  const first = await listDecisions(ctx, runtime, { runId: input.runId, query: cursor ? { cursor } : {} });
  const enc = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let ended = false;
      let state: string | null = null;
      const write = (text: string) => {
        try {
          controller.enqueue(enc.encode(text));
        } catch {
          cleanup();
        }
      };
      const emit = (page: typeof first) => {
        for (const d of page.decisions) write(`id: ${d.cursor}\nevent: decision\ndata: ${JSON.stringify(d)}\n\n`);
        cursor = page.nextCursor;
        if (page.state !== state)
          write(`event: state\ndata: ${JSON.stringify({ runId: page.runId, state: page.state, pending: page.pending })}\n\n`);
        state = page.state;
        if (isTerminal(page.state) && page.decisions.length < 100) {
          ended = true;
          cleanup();
        }
      };
      // One read at a time; a message during a read asks for one more.
      let reading = false;
      let again = false;
      const read = async () => {
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          do {
            again = false;
            if (closed) return;
            const page = await listDecisions(ctx, runtime, { runId: input.runId, query: cursor ? { cursor } : {} });
            // Asked after the read began: a decision read after the token's revocation committed is never sent.
            if (!(await input.recheck())) return cleanup();
            emit(page);
          } while (again);
        } catch {
          cleanup();
        } finally {
          reading = false;
        }
      };
      write(": connected\n\n");
      emit(first);
      const unsubscribe = ctx.live.subscribe((m) => {
        if (m.topic === "run" && m.runId === input.runId) void read();
      });
      // The token's revocation (any instance) asks at once; read() ends the stream when it no longer works.
      const unwatch = runtime ? onAccessChanged(ctx.live, runtimeActorId(runtime), () => void read()) : () => {};
      const ping = setInterval(() => write(": ping\n\n"), PING_MS);
      const poll = setInterval(() => void read(), SAFETY_POLL_MS);
      cleanup = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        unwatch();
        clearInterval(ping);
        clearInterval(poll);
        try {
          controller.close();
        } catch {}
      };
      if (ended) cleanup();
      input.signal.addEventListener("abort", () => cleanup(), { once: true });
    },
    cancel() {
      cleanup();
    },
  });
  return eventStreamResponse(stream);
}
