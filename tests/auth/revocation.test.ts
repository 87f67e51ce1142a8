// Revocation ends every kind of access within seconds, wherever the stream is: for a revoked token, a
// disabled user, a role change, a group change and a sign-out everywhere, an open stream of a run and of
// the inbox ends and gets nothing published after the change, and the same credential is refused at the
// next request (a group change keeps the access, under the new groups). On SQLite (one instance, the
// in-process bus) and on PostgreSQL across two instances (the change on A, the streams on B, the notice
// through LISTEN/NOTIFY). The browser's side (EventSource, next-auth's real session): e2e/sso/revocation.spec.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestCaller } from "@/lib/auth/caller";
import { UnauthorizedError } from "@/lib/auth/errors";
import type { AppContext } from "@/lib/context";
import { startRun } from "@/lib/services/start";
import { freshDatabase, providers, type TestDb, twoInstances } from "../helpers/databases";
import { KINDS, type Kind, benchAdmin, newReviewer, openStream, revokeWhileFollowing } from "../helpers/revocation";

const WITHIN_MS = 3_000;

describe.each(providers)("revocation on %s", (provider) => {
  let t: TestDb;
  // SQLite: one instance. PostgreSQL: two, each with its own LISTEN connection.
  let a: AppContext;
  let b: AppContext;
  let close: () => Promise<void>;
  let runId: string;

  beforeAll(async () => {
    t = await freshDatabase(provider);
    ({ a, b, close } = await twoInstances(t));
    ({ id: runId } = await startRun(a, benchAdmin, { body: { agent: "order-status", input: { order_id: "ORD-1234" } } }));
    // The run settles before the first case: its own state events (a worker on PostgreSQL takes it a moment
    // later) would otherwise reach the streams while a case revokes, counted as if sent after the change.
    for (let i = 0; i < 300; i++) {
      const row = await t.db.run.findUnique({ where: { id: runId } });
      if (row && row.state !== "pending" && row.state !== "running") break;
      await new Promise((ok) => setTimeout(ok, 100));
    }
    await a.worker.idle();
  });
  afterAll(async () => {
    await close?.();
    await t?.drop();
  });

  // Quiet: only the access notice can end the streams this soon (the keep-alive check comes after 5 s).
  // Busy: events for the run and the inbox every 10 ms from the moment the change committed.
  it.each((Object.keys(KINDS) as Kind[]).flatMap((k) => [[k, "quiet"] as const, [k, "busy"] as const]))(
    "%s (%s): the run and inbox streams end within seconds and get nothing after",
    async (kind, mode) => {
      const out = await revokeWhileFollowing(b, a, runId, kind, { busy: mode === "busy" });
      expect(out.closedMs.run).toBeLessThan(WITHIN_MS);
      expect(out.closedMs.inbox).toBeLessThan(WITHIN_MS);
      expect(out.after, JSON.stringify(out.after)).toEqual({ run: [], inbox: [] });
      // The next request with the same credential.
      if (kind === "groups changed") {
        const again = await requestCaller(b.db, out.request());
        expect(again.actor).toMatchObject({ id: out.reviewer.user.id, role: "reviewer", groups: ["ops"] });
      } else if (KINDS[kind].credential === "bearer") {
        await expect(requestCaller(b.db, out.request())).rejects.toBeInstanceOf(UnauthorizedError);
      } else {
        expect((await requestCaller(b.db, out.request())).actor).toBeNull();
      }
    },
  );

  it("closes only the streams whose credential stopped working: a token of the same user keeps following", async () => {
    const r = await newReviewer(a);
    const bySession = await openStream(b, r.session(), { inbox: "1" });
    const byToken = await openStream(b, r.bearer(), { inbox: "1" });
    await KINDS["signed out everywhere"].revoke(a, r);
    await bySession.ended;
    a.live.publish({ topic: "inbox" });
    await expect.poll(() => byToken.seen.filter((e) => e.type === "inbox").length).toBeGreaterThan(0);
    byToken.stop();
  });

  it("checks the caller before every event, without a notice: access taken away behind its back stops the next event", async () => {
    const r = await newReviewer(a);
    const s = await openStream(b, r.session(), { inbox: "1" });
    const seen = s.seen.length;
    // Straight in the database, as a script or another tool would: nobody publishes an access notice.
    await t.db.user.update({ where: { id: r.user.id }, data: { disabled: true } });
    a.live.publish({ topic: "inbox" });
    await s.ended;
    expect(s.seen.slice(seen)).toEqual([]);
  });
});
