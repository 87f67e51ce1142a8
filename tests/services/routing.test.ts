// Routing: a rule names the groups whose members may decide its approvals. The API refuses everyone else
// (403, nothing recorded), the inbox and the run page tell each reviewer what they may decide, admins are
// not bound, and a token acting as a user carries the user's groups. The inbox pages past 200 by cursor.
import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import { HttpError } from "@/lib/auth/errors";
import { actorFromToken } from "@/lib/auth/tokens";
import { createToken } from "@/lib/services/tokens";
import { createUser, updateUser } from "@/lib/services/users";
import { decide } from "@/lib/services/decide";
import { inboxPage, listInbox } from "@/lib/services/inbox";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { type PendingCursor, pendingApprovals, readPending } from "@/lib/db/approvals";
import { PrismaStore } from "@/lib/db/store";
import { createApprovalRequest } from "@/lib/runner";
import { databaseWithContext, providers } from "../helpers/databases";
import { admin } from "../helpers/actors";

const sub: Actor = { id: "u-sub", email: "submitter@example.com", name: "S", role: "submitter" };
const finance: Actor = { id: "u-fin", email: "fin@example.com", name: "F", role: "reviewer", groups: ["finance"] };
const ops: Actor = { id: "u-ops", email: "ops@example.com", name: "O", role: "reviewer", groups: ["ops"] };
const nobody: Actor = { id: "u-none", email: "none@example.com", name: "N", role: "reviewer" };

const error = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as HttpError,
  );

describe.each(providers)("routing on %s", (provider) => {
  const h = databaseWithContext(provider);

  it("a large refund is decided by finance only: others get 403 and read it; finance decides; the run resumes", async () => {
    const { id } = await startRun(h.ctx, sub, {
      body: {
        agent: "refund-desk",
        input: { order_id: "ORD-1001", amount_cents: 250_000, reason: "Whole order lost" },
      },
    });
    await h.ctx.worker.idle();
    const view = await getRunView(h.ctx, ops, { runId: id });
    const refund = view.approvals.find((a) => a.tool_name === "issue_refund")!;
    expect([refund.rule_id, refund.groups, refund.canDecide]).toEqual(["refund-large", ["finance"], false]);
    // The notification's rule names no group: anyone who decides approvals may decide it.
    const notify = view.approvals.find((a) => a.tool_name === "notify_customer")!;
    expect([notify.groups, notify.canDecide]).toEqual([[], true]);
    expect((await getRunView(h.ctx, finance, { runId: id })).approvals.find((a) => a.id === refund.id)?.canDecide).toBe(true);

    const inbox = await listInbox({ db: h.t.db }, ops, { query: {} });
    expect(inbox.approvals.find((a) => a.id === refund.id)).toMatchObject({ groups: ["finance"], canDecide: false });
    expect(inbox.approvals.find((a) => a.id === notify.id)).toMatchObject({ groups: [], canDecide: true });

    for (const who of [ops, nobody]) {
      const refused = await error(decide(h.ctx, who, { approvalId: refund.id, body: { decision: "approve", argsHash: refund.argsHash } }));
      expect(refused).toBeInstanceOf(HttpError);
      expect(refused!.status).toBe(403);
      expect(refused!.message).toBe("This approval is routed to finance; you are in none of them");
    }
    // Nothing was recorded for the refused ones.
    expect((await getRunView(h.ctx, finance, { runId: id })).approvals.find((a) => a.id === refund.id)?.decisions).toEqual([]);
    expect(await h.t.db.auditEvent.count({ where: { targetId: id, action: { startsWith: "approval." } } })).toBe(0);

    await decide(h.ctx, ops, { approvalId: notify.id, body: { decision: "approve", argsHash: notify.argsHash } });
    const r = await decide(h.ctx, finance, { approvalId: refund.id, body: { decision: "approve", argsHash: refund.argsHash } });
    expect(r.approval.status).toBe("approved");
    // finance's decision completed the step: the run resumes by itself.
    expect(r.resumed).toBe(true);
    await h.ctx.worker.idle();
    expect((await getRunView(h.ctx, finance, { runId: id })).run.state).toBe("completed");
    expect(await h.t.db.refund.count({ where: { runId: id } })).toBe(1);
  });

  it("an admin is not bound by routing; a small refund is not routed", async () => {
    const { id } = await startRun(h.ctx, sub, {
      body: {
        agent: "refund-desk",
        input: { order_id: "ORD-1002", amount_cents: 150_000, reason: "Damaged" },
      },
    });
    const { id: small } = await startRun(h.ctx, sub, {
      body: {
        agent: "refund-desk",
        input: { order_id: "ORD-1003", amount_cents: 9000, reason: "Damaged" },
      },
    });
    await h.ctx.worker.idle();
    const refund = (await getRunView(h.ctx, admin, { runId: id })).approvals.find((a) => a.tool_name === "issue_refund")!;
    expect(refund.canDecide).toBe(true);
    expect(
      (await decide(h.ctx, admin, { approvalId: refund.id, body: { decision: "reject", reason: "Not this one" } })).approval.status,
    ).toBe("rejected");
    const smallRefund = (await getRunView(h.ctx, nobody, { runId: small })).approvals.find((a) => a.tool_name === "issue_refund")!;
    expect([smallRefund.rule_id, smallRefund.groups, smallRefund.canDecide]).toEqual(["refund-above-threshold", [], true]);
  });

  it("groups are set on users (validated by field), reach a session's actor and a token acting as the user", async () => {
    const created = await createUser({ db: h.t.db }, admin, {
      body: {
        email: "Lena@example.com",
        name: "Lena",
        role: "reviewer",
        password: "a-long-password",
        groups: ["Finance", "ops", "finance"],
      },
    });
    expect(created.groups).toEqual(["finance", "ops"]);
    const bad = await error(updateUser(h.ctx, admin, { userId: created.id, body: { groups: ["ok", "not a group!"] } }));
    expect([bad?.status, bad?.field]).toEqual([400, "groups.1"]);
    const updated = await updateUser(h.ctx, admin, { userId: created.id, body: { groups: ["legal"] } });
    expect(updated.groups).toEqual(["legal"]);
    const audit = await h.t.db.auditEvent.findFirst({ where: { targetId: created.id, action: "user.update" } });
    expect(JSON.parse(audit!.data)).toMatchObject({ before: { groups: ["finance", "ops"] }, after: { groups: ["legal"] } });
    // Changing groups does not end the user's sessions (each request reads them), a role change does.
    const row = await h.t.db.user.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.sessionVersion).toBe(0);
    const { token } = await createToken({ db: h.t.db }, admin, { body: { name: "lena-cli", role: "reviewer", userId: created.id } });
    expect((await actorFromToken(h.t.db, token))?.groups).toEqual(["legal"]);
  });
});

/** A pending approval request of refund-desk for its own run, as the runner stores one. */
function addApproval(store: PrismaStore, runId: string, i: number, atMs: number, tool = "issue_refund") {
  return createApprovalRequest(store, {
    run_id: runId,
    root_run_id: runId,
    thread_id: runId,
    step: 1,
    tool_call_id: "call_1",
    tool_name: tool,
    agent_name: "refund-desk",
    agent_path: "refund-desk",
    args: { i },
    input_hash: `h${i}`,
    reason: "test",
    rule_id: null,
    quorum: 1,
    groups: [],
    requested_at_ms: atMs,
    deadline_ms: null,
    fallback: "deny",
    requested_by: null,
  });
}

describe.each(providers)("inbox pages on %s", (provider) => {
  const h = databaseWithContext(provider);

  it("pages 450 pending approvals by cursor (ties on the millisecond included): each once, oldest first", async () => {
    const store = new PrismaStore(h.t.db);
    for (let i = 0; i < 450; i++)
      // Three approvals per millisecond: the cursor must order ties by key.
      await addApproval(
        store,
        `page-run-${String(i).padStart(3, "0")}`,
        i,
        1_000_000 + Math.floor(i / 3),
        i % 5 === 0 ? "notify_customer" : "issue_refund",
      );
    const seen: number[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    for (;;) {
      const { inbox } = await inboxPage({ db: h.t.db }, finance, { query: cursor ? { cursor } : {} });
      sizes.push(inbox!.approvals.length);
      seen.push(...inbox!.approvals.map((a) => Number(a.runId.slice("page-run-".length))));
      if (!inbox!.nextCursor) break;
      cursor = inbox!.nextCursor;
    }
    expect(sizes).toEqual([200, 200, 50]);
    expect(seen).toEqual(Array.from({ length: 450 }, (_, i) => i));

    // A filtered page is filtered in the query: full pages of matches, a cursor to the next.
    const filtered: number[] = [];
    let after: PendingCursor | null = null;
    let pages = 0;
    for (;;) {
      const page = await pendingApprovals(h.t.db, { after, take: 40, tool: "notify_customer" });
      pages++;
      filtered.push(...readPending(page.rows).approvals.map((a) => Number(a.args.i)));
      if (!page.next) break;
      after = page.next;
    }
    expect(filtered).toEqual(Array.from({ length: 90 }, (_, i) => i * 5));
    expect(pages).toBe(3);
    const one = await inboxPage({ db: h.t.db }, finance, { query: { tool: "notify_customer" } });
    expect([one.inbox!.approvals.length, one.inbox!.nextCursor]).toEqual([90, null]);

    const bad = await error(inboxPage({ db: h.t.db }, finance, { query: { cursor: "not-a-cursor" } }));
    expect([bad?.status, bad?.field]).toEqual([400, "cursor"]);
  });
});

describe.each(providers)("an inbox page with an unreadable approval on %s", (provider) => {
  const h = databaseWithContext(provider);

  it("an unreadable approval on the first page: that page still says a next one follows, and the next holds the rest", async () => {
    const store = new PrismaStore(h.t.db);
    const run = (i: number) => `corrupt-page-${String(i).padStart(3, "0")}`;
    for (let i = 0; i < 230; i++) await addApproval(store, run(i), i, 2_000_000 + i);
    const victim = await h.t.db.approval.findFirstOrThrow({ where: { threadId: run(5) } });
    await h.t.db.approval.update({ where: { id: victim.id }, data: { record: '{"schema_version":"v5","status":' } });
    const pages: { n: number; corrupt: number; next: boolean }[] = [];
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 5; guard++) {
      const { inbox } = await inboxPage({ db: h.t.db }, finance, { query: cursor ? { cursor } : {} });
      const mine = inbox!.approvals.filter((a) => a.runId.startsWith("corrupt-page-"));
      seen.push(...mine.map((a) => Number(a.runId.slice(-3))));
      pages.push({ n: mine.length, corrupt: inbox!.corrupt.length, next: inbox!.nextCursor !== null });
      if (!inbox!.nextCursor) break;
      cursor = inbox!.nextCursor;
    }
    expect(pages).toEqual([
      { n: 200, corrupt: 1, next: true },
      { n: 29, corrupt: 0, next: false },
    ]);
    expect(seen).toEqual(Array.from({ length: 230 }, (_, i) => i).filter((i) => i !== 5));
    // Asked again (the ETag path: an unchanged first page is built once), it still says a next page follows.
    expect((await inboxPage({ db: h.t.db }, finance, { query: {} })).inbox!.nextCursor).not.toBeNull();
  });
});

describe.each(providers)("a full inbox page on %s", (provider) => {
  const h = databaseWithContext(provider);

  it("a full first page answered when nothing was behind it changes its ETag when an approval arrives behind it", async () => {
    const store = new PrismaStore(h.t.db);
    const add = (i: number) => addApproval(store, `full-page-${i}`, i, 3_000_000 + i);
    const waiting = (await inboxPage({ db: h.t.db }, finance, { query: {} })).inbox!.approvals.length;
    for (let i = 0; i < 200 - waiting; i++) await add(i);
    const full = await inboxPage({ db: h.t.db }, finance, { query: {} });
    expect([full.inbox!.approvals.length, full.inbox!.nextCursor]).toEqual([200, null]);
    await add(999);
    // The browser revalidates with the ETag it holds: it must not get a 304 (or the copy built before).
    const after = await inboxPage({ db: h.t.db }, finance, { query: {}, ifNoneMatch: full.etag });
    expect(after.etag).not.toBe(full.etag);
    expect(after.inbox!.approvals.length).toBe(200);
    expect(after.inbox!.nextCursor).not.toBeNull();
  });
});
