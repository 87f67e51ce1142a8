// The inbox's ETag: unchanged pending records → the same tag and a 304 (no body built); a decision, another
// reviewer or other filters → another tag. An unreadable approval is listed apart, and reading the inbox
// writes nothing (the sweep marks its run). Real database, real runs.
import { describe, expect, it } from "vitest";
import { databaseWithContext, providers } from "../helpers/databases";
import { decide } from "@/lib/services/decide";
import { inboxPage } from "@/lib/services/inbox";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { sweep } from "@/lib/services/deadlines";
import { approvalName } from "@/lib/runner";
import type { Actor } from "@/lib/auth/actor";
import { rev, sub } from "../helpers/actors";

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

describe.each(providers)("an unreadable approval in the inbox on %s", (provider) => {
  const w = databaseWithContext(provider);

  it("is listed apart and the read writes nothing; the sweep marks its run, whose page says so", async () => {
    const { t, ctx } = w;
    const { id } = await startRun(ctx, sub, {
      body: { agent: "deploy-bot", input: { service: "gamma", version: "1.0.0", environment: "staging" } },
    });
    await ctx.worker.idle();
    const [found] = await t.db.approval.findMany({ where: { threadId: id, status: "pending" } });
    // Read once while it is sound (this process keeps records it has read): the damage is seen all the same.
    const before = await inboxPage({ db: t.db }, rev, { query: {} });
    expect(before.inbox!.approvals.map((a) => a.id)).toContain(found.id);
    await t.db.approval.update({ where: { id: found.id }, data: { record: "{not json" } });
    // Named as it always was: by its key in the runner's key contract.
    const row = { key: approvalName(found.id) };
    expect(row.key).toBe(`approval:${id}:000002:call_deploy`);
    const updatedAt = (await t.db.run.findUniqueOrThrow({ where: { id } })).updatedAt;
    const { inbox } = await inboxPage({ db: t.db }, rev, { query: {} });
    expect(inbox!.approvals.filter((a) => a.runId === id)).toEqual([]);
    expect(inbox!.corrupt).toEqual([expect.objectContaining({ key: row.key, runId: id, error: "AgentCheckpointCorruptionError" })]);
    expect(await t.db.run.findUniqueOrThrow({ where: { id } })).toMatchObject({ corruptKey: null, updatedAt });
    expect(await sweep(ctx)).toMatchObject({ corrupt: 1 });
    expect((await t.db.run.findUniqueOrThrow({ where: { id } })).corruptKey).toBe(row.key);
    expect((await getRunView(ctx, rev, { runId: id })).corruption).toMatchObject({ key: row.key });
  });
});
