// The inbox's ETag: unchanged pending records → the same tag and a 304 (no body built); a decision, another
// reviewer or other filters → another tag. Real database, real runs.
import { describe, expect, it } from "vitest";
import { databaseWithContext, providers } from "./helpers/databases";
import { decide } from "@/lib/services/decide";
import { inboxPage } from "@/lib/services/inbox";
import { startRun } from "@/lib/services/start";
import type { Actor } from "@/lib/auth/actor";

const sub: Actor = { id: "u-sub", email: "sub@example.com", name: "S", role: "submitter" };
const rev: Actor = { id: "u-rev", email: "rev@example.com", name: "R", role: "reviewer" };
const rev2: Actor = { id: "u-rev2", email: "rev2@example.com", name: "R2", role: "reviewer" };

describe.each(providers)("inbox ETag on %s", (provider) => {
  const w = databaseWithContext(provider);

  it("is stable while nothing changes and moves with a decision", async () => {
    const { t, ctx } = w;
    for (const service of ["alpha", "beta"])
      await startRun(ctx, sub, { body: { agent: "deploy-bot", input: { service, version: "1.0.0", environment: "staging" } } });
    await ctx.worker.idle();
    const first = await inboxPage({ db: t.db }, rev, { query: {} });
    expect(first.inbox!.approvals).toHaveLength(2);
    const same = await inboxPage({ db: t.db }, rev, { query: {}, ifNoneMatch: first.etag });
    expect(same).toEqual({ etag: first.etag, inbox: null });
    expect((await inboxPage({ db: t.db }, rev, { query: {}, ifNoneMatch: `"other", ${first.etag}` })).inbox).toBeNull();
    expect((await inboxPage({ db: t.db }, rev2, { query: {} })).etag).not.toBe(first.etag);
    expect((await inboxPage({ db: t.db }, rev, { query: { agent: "deploy-bot" } })).etag).not.toBe(first.etag);
    await decide(ctx, rev, { approvalId: first.inbox!.approvals[0].id, body: { decision: "reject", reason: "no" } });
    const after = await inboxPage({ db: t.db }, rev, { query: {}, ifNoneMatch: first.etag });
    expect(after.etag).not.toBe(first.etag);
    expect(after.inbox!.approvals.map((a) => a.id)).toEqual([first.inbox!.approvals[1].id]);
  });
});
