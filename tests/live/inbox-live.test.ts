// Nothing stale on an open inbox: the browser's own follower (components/live.ts) on a real EventSource
// (the `eventsource` package, as browsers implement it: retry, reconnect), against GET /api/events's real
// route handler served over HTTP, on a real SQLite database. When the reviewer's groups change, their
// stream ends and is back with a refetch within a second (it used to come back after 2 s and refetch
// nothing until the 15 s poll); when a paused run is cancelled, every open inbox hears it within a second.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { EventSource as NodeEventSource } from "eventsource";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { scratchDatabase, type ScratchDb } from "../helpers/scratch";

let s: ScratchDb;
let server: Server;
let origin = "";
let bearer = "";
let ctx: AppContext;

const admin = { id: "live-admin", email: "live-admin@example.com", name: "A", role: "admin" as const };
const operator = { id: "live-op", email: "live-op@example.com", name: "O", role: "operator" as const };
const submitter = { id: "live-sub", email: "live-sub@example.com", name: "S", role: "submitter" as const };

beforeAll(async () => {
  s = await scratchDatabase("sqlite");
  process.env.DATABASE_URL = s.url;
  (await import("@/lib/env")).resetEnv();
  ctx = (await import("@/lib/context")).appContext();
  const { GET } = await import("@/app/api/events/route");
  // The route handler over HTTP, as Next serves it: the request in, the streamed response out.
  server = createServer(async (req, res) => {
    const ac = new AbortController();
    req.on("close", () => ac.abort());
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const r = await GET(new Request(`${origin}${req.url}`, { headers, signal: ac.signal }), { params: Promise.resolve({}) });
    res.writeHead(r.status, Object.fromEntries(r.headers));
    if (!r.body) return res.end();
    const reader = r.body.getReader();
    ac.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}));
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return res.end();
      res.write(value);
    }
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The browser's EventSource: relative URLs against the page's origin; the credential rides along.
  (globalThis as Record<string, unknown>).EventSource = class extends NodeEventSource {
    constructor(url: string) {
      super(new URL(url, origin), {
        fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${bearer}` } }),
      });
    }
  };
});
afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await ctx?.worker.idle();
  await s?.drop();
});

const until = async (cond: () => boolean | Promise<boolean>, ms = 10_000) => {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("an open inbox", () => {
  let heard: number[] = [];
  let unfollow = () => {};
  let reviewerId = "";

  beforeAll(async () => {
    const { createUser } = await import("@/lib/services/users");
    const { createToken } = await import("@/lib/services/tokens");
    const r = await createUser(ctx, admin, {
      body: { email: "live-reviewer@example.com", name: "R", role: "reviewer", password: "long-enough-1", groups: ["finance"] },
    });
    reviewerId = r.id;
    bearer = (await createToken(ctx, admin, { body: { name: "live", role: "reviewer", userId: r.id } })).token;
    const { followLive } = await import("@/components/live");
    unfollow = followLive({ inbox: true, on: (e) => e.type === "inbox" && heard.push(performance.now()) });
    // Connected once an inbox event gets through.
    await until(() => {
      ctx.live.publish({ topic: "inbox" });
      return heard.length > 0;
    });
  });
  afterAll(() => unfollow());

  it("refetches within a second after the reviewer's groups change", async () => {
    const { updateUser } = await import("@/lib/services/users");
    await new Promise((r) => setTimeout(r, 300));
    heard = [];
    const t0 = performance.now();
    await updateUser(ctx, admin, { userId: reviewerId, body: { groups: ["ops"] } });
    await until(() => heard.length > 0, 5_000);
    const ms = heard[0] - t0;
    console.log(`groups changed → inbox refetch after ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(1_000);
  });

  it("hears a cancelled run within a second, when its approvals have left the inbox", async () => {
    const { startRun } = await import("@/lib/services/start");
    const { cancelRun } = await import("@/lib/services/operate");
    const { inboxPage } = await import("@/lib/services/inbox");
    const reviewer = { id: reviewerId, email: "live-reviewer@example.com", name: "R", role: "reviewer" as const, groups: ["ops"] };
    const { id } = await startRun(ctx, submitter, {
      body: { agent: "deploy-bot", input: { service: "svc", version: "1.0.0", environment: "staging" } },
    });
    await until(async () => (await s.db.run.findUnique({ where: { id } }))?.state === "paused");
    const listed = async () => JSON.stringify((await inboxPage(ctx, reviewer, { query: {} })).inbox).includes(id);
    expect(await listed()).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    heard = [];
    const t0 = performance.now();
    await cancelRun(ctx, operator, { runId: id });
    await until(() => heard.length > 0, 20_000);
    const ms = heard[0] - t0;
    console.log(`run cancelled → inbox event after ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(1_000);
    expect(await listed()).toBe(false);
  });
});
