// Open event streams and the ways to lose access, for tests/auth/revocation.test.ts and
// bench/bench-revocation.ts. A stream is GET /api/events's own code (lib/services/live-events.ts) with its caller
// read from a real Request by lib/auth/caller.ts: a bearer token, or a session cookie holding a JWT made
// by next-auth's own encoder with the app's secret, as a browser would send it.
import { randomBytes } from "node:crypto";
import { encode } from "next-auth/jwt";
import type { Actor } from "../../lib/auth/actor.ts";
import { requestCaller } from "../../lib/auth/caller.ts";
import { signOutEverywhere } from "../../lib/auth/revocation.ts";
import type { SsoConfig } from "../../lib/auth/sso.ts";
import { signInThroughIdp } from "../../lib/auth/sso-users.ts";
import type { AppContext } from "../../lib/context.ts";
import { env } from "../../lib/env.ts";
import { liveEvents } from "../../lib/services/live-events.ts";
import { patchUserScim } from "../../lib/scim/users.ts";
import { createToken, revokeToken } from "../../lib/services/tokens.ts";
import { createUser, updateUser } from "../../lib/services/users.ts";

/** An event the client read, and when (performance.now()). */
export type Seen = { type: string; at: number };
export type OpenStream = { seen: Seen[]; ended: Promise<number>; stop(): void };

/** The admin who changes access in these tests (services check the role; the audit names them). */
export const benchAdmin: Actor = { id: "revocation-admin", email: "revocation-admin@example.com", name: "Admin", role: "admin" };

/** A new reviewer in finance, with a session cookie and (for the token kind) an API token of theirs. */
export async function newReviewer(ctx: AppContext) {
  const email = `reviewer-${randomBytes(4).toString("hex")}@example.com`;
  const user = await createUser(ctx, benchAdmin, {
    body: { email, name: "R", role: "reviewer", password: "long-enough-1", groups: ["finance"] },
  });
  const jwt = await encode({ token: { sub: user.id, email, role: "reviewer", sessionVersion: 0 }, secret: env().NEXTAUTH_SECRET });
  const token = await createToken(ctx, benchAdmin, { body: { name: "cli", role: "reviewer", userId: user.id } });
  return {
    user,
    session: () => new Request("http://localhost/api/events", { headers: { cookie: `next-auth.session-token=${jwt}` } }),
    bearer: () => new Request("http://localhost/api/events", { headers: { authorization: `Bearer ${token.token}` } }),
    tokenId: token.id,
  };
}
export type Reviewer = Awaited<ReturnType<typeof newReviewer>>;

/** Opens GET /api/events?<query> on ctx for the request's caller and reads it as a client would. */
export async function openStream(ctx: AppContext, req: Request, query: Record<string, string>): Promise<OpenStream> {
  const ac = new AbortController();
  const res = await liveEvents(ctx, await requestCaller(ctx.db, req), query, ac.signal);
  const reader = res.body!.getReader();
  const seen: Seen[] = [];
  const dec = new TextDecoder();
  let ready: () => void = () => {};
  const isReady = new Promise<void>((r) => {
    ready = r;
  });
  const ended = (async () => {
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return performance.now();
      buf += dec.decode(value, { stream: true });
      for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
        const type = /^event: (\S+)/m.exec(buf.slice(0, i))?.[1];
        if (type) seen.push({ type, at: performance.now() });
        if (type === "ready") ready();
        buf = buf.slice(i + 2);
      }
    }
  })();
  await Promise.race([isReady, ended.then(() => Promise.reject(new Error("the stream ended before it was ready")))]);
  return { seen, ended, stop: () => ac.abort() };
}

/** Each way to lose access, done through the services on ctx (another instance than the stream's, on PostgreSQL). */
export const KINDS = {
  "token revoked": { credential: "bearer", revoke: (ctx: AppContext, r: Reviewer) => revokeToken(ctx, benchAdmin, { tokenId: r.tokenId }) },
  "user disabled": {
    credential: "session",
    revoke: (ctx: AppContext, r: Reviewer) => updateUser(ctx, benchAdmin, { userId: r.user.id, body: { disabled: true } }),
  },
  "role changed": {
    credential: "session",
    revoke: (ctx: AppContext, r: Reviewer) => updateUser(ctx, benchAdmin, { userId: r.user.id, body: { role: "operator" } }),
  },
  "groups changed": {
    credential: "session",
    revoke: (ctx: AppContext, r: Reviewer) => updateUser(ctx, benchAdmin, { userId: r.user.id, body: { groups: ["ops"] } }),
  },
  "signed out everywhere": { credential: "session", revoke: (ctx: AppContext, r: Reviewer) => signOutEverywhere(ctx, r.user.id) },
  // The reviewer signs in through the IdP (linked by their verified email), then the IdP takes them out of
  // every admitted group: their next sign-in is refused and suspends them, their own API tokens included.
  "removed at the IdP (session)": { credential: "session", revoke: (ctx: AppContext, r: Reviewer) => removedAtIdp(ctx, r) },
  "removed at the IdP (token)": { credential: "bearer", revoke: (ctx: AppContext, r: Reviewer) => removedAtIdp(ctx, r) },
  // The IdP deactivates the reviewer over SCIM, as Entra ID sends it ("Replace", "False").
  "deprovisioned through SCIM": { credential: "bearer", revoke: (ctx: AppContext, r: Reviewer) => deprovisioned(ctx, r) },
} as const;

async function deprovisioned(ctx: AppContext, r: Reviewer) {
  const caller = { tokenId: "bench-scim", name: "bench-scim", audit: { id: "token:bench-scim", email: "token:bench-scim" } };
  const body = {
    schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
    Operations: [{ op: "Replace", path: "active", value: "False" }],
  };
  await patchUserScim(ctx, caller, r.user.id, body, "http://localhost/scim/v2");
}

export const benchIdp: SsoConfig = {
  issuer: "https://idp.example.com",
  clientId: "afk",
  clientSecret: "secret",
  name: "Acme",
  scopes: "openid email profile",
  groupsClaim: "groups",
  groupMap: { "finance-approvers": { role: "reviewer", groups: ["finance"] } },
};

async function removedAtIdp(ctx: AppContext, r: Reviewer) {
  const claims = (groups: string[]) => ({ iss: benchIdp.issuer, sub: r.user.id, email: r.user.email, email_verified: true, groups });
  const linked = await signInThroughIdp(ctx, benchIdp, claims(["finance-approvers"]));
  if (!linked.ok) throw new Error(`the reviewer's first sign-in through the IdP was refused: ${linked.refusal}`);
  const removed = await signInThroughIdp(ctx, benchIdp, claims([]));
  if (removed.ok) throw new Error("the IdP's removal was not refused");
}
export type Kind = keyof typeof KINDS;

/**
 * Opens a run's and the inbox's streams on `streams` for a new reviewer and takes their access away on
 * `changes`. Quiet: nothing else happens until both streams end (only the access notice can end them
 * before the next keep-alive check). Busy: events for the run and the inbox are published every 10 ms from
 * the moment the change committed (each is checked before it would go out). Returns how long after the
 * change committed each stream ended, and what each got once the change began.
 */
export async function revokeWhileFollowing(
  streams: AppContext,
  changes: AppContext,
  runId: string,
  kind: Kind,
  opts: { busy: boolean; timeoutMs?: number },
) {
  const r = await newReviewer(changes);
  const how = KINDS[kind];
  const req = () => (how.credential === "bearer" ? r.bearer() : r.session());
  const run = await openStream(streams, req(), { run: runId });
  const inbox = await openStream(streams, req(), { inbox: "1" });
  let n = 0;
  // What happens next must not reach them: the run's model streams, the run moves (which also ends its
  // text so far, so the next stream opened on it starts with none), the inbox changes.
  const publish = () => {
    changes.live.publish({ topic: "delta", runId, step: 1, offset: n++, text: "x" });
    changes.live.publish({ topic: "run", runId, state: "running" });
    changes.live.publish({ topic: "inbox" });
  };
  const before = { run: run.seen.length, inbox: inbox.seen.length };
  const t0 = performance.now();
  await how.revoke(changes, r);
  const t1 = performance.now();
  const events = opts.busy ? setInterval(publish, 10) : null;
  const timeout = (s: OpenStream) =>
    Promise.race([s.ended, new Promise<number>((ok) => setTimeout(() => ok(Number.NaN), opts.timeoutMs ?? 10_000))]);
  const [runEnd, inboxEnd] = await Promise.all([timeout(run), timeout(inbox)]);
  if (events) clearInterval(events);
  publish();
  await new Promise((ok) => setTimeout(ok, 50));
  run.stop();
  inbox.stop();
  return {
    reviewer: r,
    request: req,
    closedMs: { run: runEnd - t1, inbox: inboxEnd - t1 },
    // From the start of the change's call (a SCIM PATCH or a refused sign-in closes the streams before it returns).
    sinceCallMs: { run: runEnd - t0, inbox: inboxEnd - t0 },
    after: { run: run.seen.slice(before.run), inbox: inbox.seen.slice(before.inbox) },
  };
}
