// A runtime token's revocation ends what it holds open, as it does for the console's own event streams: a
// long-poll (`?wait=`) answers 401 and the decision stream closes within moments, and neither hands out a
// decision taken after the revocation. Through the route handlers (the token read from a real Request). On
// SQLite (one instance) and on PostgreSQL across two instances: held by A, the token revoked and the
// decision taken on B, the access notice through LISTEN/NOTIFY.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { runtimeFromToken } from "@/lib/auth/tokens";
import { parkInterrupts, registerRun } from "@/lib/services/runtime-protocol";
import { createToken, revokeToken } from "@/lib/services/tokens";
import { admin, rev } from "../helpers/actors";
import { freshDatabase, providers, type TestDb, twoInstances } from "../helpers/databases";
import { routeOf } from "../helpers/protocol-server";

// Without the access notice a held long-poll would notice at its next safety read (every 2 s from when it
// was held, so 1.7 s after this test's revocation) and the stream at its 5 s poll: these bounds prove the
// notice ends them.
const WITHIN_MS = 1_000;
const HELD_MS = 300;
type Mode = "quiet" | "busy";
const MODES: Mode[] = ["quiet", "busy"];

describe.each(providers)("a runtime token revoked while it waits (%s)", (provider) => {
  let t: TestDb;
  let a: AppContext;
  let b: AppContext;
  let close: () => Promise<void>;
  const g = globalThis as unknown as { afkContext?: AppContext; afkDb?: AppContext["db"] };
  beforeAll(async () => {
    t = await freshDatabase(provider);
    ({ a, b, close } = await twoInstances(t));
    // The routes run on A (appContext() and db() read these).
    g.afkDb = t.db;
    g.afkContext = a;
  });
  afterAll(async () => {
    g.afkContext = undefined;
    g.afkDb = undefined;
    await close?.();
    await t?.drop();
  });

  /** A runtime with a run and one parked interrupt, its token, and a GET on its decisions as the runtime sends it. */
  async function parkedRun(name: string) {
    const made = await createToken(a, admin, { body: { name, role: "runtime" } });
    const runtime = await runtimeFromToken(a.db, made.token);
    const run = await registerRun(a, runtime, { body: { externalId: name, framework: "langgraph", agent: "ops" } });
    const parked = await parkInterrupts(a, runtime, {
      runId: run.id,
      body: { interrupts: [{ id: "call_1", action: { name: "scale_service", args: { replicas: 12 } }, message: "Scale up" }] },
    });
    const get = (rest: string, signal?: AbortSignal) =>
      routeOf(
        new Request(`http://127.0.0.1/api/v1/runtime/runs/${run.id}${rest}`, {
          headers: { authorization: `Bearer ${made.token}` },
          signal,
        }),
      ) as Promise<Response>;
    // The token works (and the route's module is loaded, so a request sent now is held at once).
    expect((await get("/decisions")).status).toBe(200);
    // Revoked on B. Quiet: only the access notice can wake what waits. Busy: a reviewer decides on B right
    // after, which wakes it too: that decision must not reach the runtime.
    const revokeThenDecide = async (mode: Mode) => {
      const at = performance.now();
      await revokeToken(b, admin, { tokenId: made.id });
      if (mode === "busy") await decide(b, rev, { approvalId: parked.interrupts[0].approvalId, body: { decision: "approve" } });
      return at;
    };
    return { get, revokeThenDecide };
  }

  it.each(MODES)("a held long-poll answers 401 at once and returns no decision taken after the revocation (%s)", async (mode) => {
    const { get, revokeThenDecide } = await parkedRun(`poll-${mode}`);
    const held = get("/decisions?wait=30").then((res) => ({ res, at: performance.now() }));
    await new Promise((r) => setTimeout(r, HELD_MS));
    const revokedAt = await revokeThenDecide(mode);
    const { res, at } = await held;
    expect(at - revokedAt).toBeLessThan(WITHIN_MS);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "The runtime token was revoked" });
    // The same token is refused from now on, a long-poll included.
    expect((await get("/decisions?wait=1")).status).toBe(401);
  });

  it.each(MODES)("the decision stream ends at once and sends no decision taken after the revocation (%s)", async (mode) => {
    const { get, revokeThenDecide } = await parkedRun(`stream-${mode}`);
    const ac = new AbortController();
    const res = await get("/decisions/stream", ac.signal);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events: string[] = [];
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    const ended = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return performance.now();
        for (const m of dec.decode(value, { stream: true }).matchAll(/^event: (\S+)/gm)) events.push(m[1]);
      }
    })();
    await new Promise((r) => setTimeout(r, HELD_MS));
    expect(events).toEqual(["state"]);
    const revokedAt = await revokeThenDecide(mode);
    const timeout = setTimeout(() => ac.abort(), 10_000);
    const endedAt = await ended;
    clearTimeout(timeout);
    expect(endedAt - revokedAt).toBeLessThan(WITHIN_MS);
    expect(events).toEqual(["state"]);
  });
});
