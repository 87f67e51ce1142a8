// The inbox page's first screen (lib/services/inbox.ts inboxFirstScreen, app/approvals/first-screen.ts): the
// first rows of the inbox's first page in the order the list shows them (what this reviewer may decide
// first), the page's count and next cursor; an inbox no longer than a screen is carried whole (nothing to
// load after hydration). Each row as the list needs it: without the policy's reason and the record's version
// (the API has them). It reads only the first rows, yet says what the first screen of the whole page read by
// /api/approvals says: checked here against that page, on a real database, for inboxes short and long, rows
// sharing a millisecond, routing that puts later rows first and an unreadable record among the first rows;
// and packed as the page passes it (each row an array of its values), read back the same.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIRST_ROWS, packFirstScreen, routed, unpackFirstScreen } from "@/app/approvals/first-screen";
import type { Actor } from "@/lib/auth/actor";
import { pendingApprovals } from "@/lib/db/approvals";
import { approvalName } from "@/lib/runner";
import type { InboxDto, InboxFirstScreenDto } from "@/lib/dto";
import { createRuntime } from "@/lib/runtime";
import { inboxFirstScreen, listInbox } from "@/lib/services/inbox";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { admin, rev } from "../helpers/actors";
import { putApprovalCopies } from "../helpers/approvals";

const finance: Actor = { id: "u-fin", email: "fin@example.com", name: "F", role: "reviewer", groups: ["finance"] };

// The first screen of the whole page as the API answers it: its rows in the list's order, cut to a screen.
function screenOf({ asOfMs: _t, ...whole }: InboxDto): Omit<InboxFirstScreenDto, "asOfMs"> {
  const rows = whole.approvals.length > FIRST_ROWS ? routed(whole.approvals).slice(0, FIRST_ROWS) : whole.approvals;
  return {
    ...whole,
    approvals: rows.map(({ reason: _r, version: _v, ...row }) => row),
    ...(whole.approvals.length > FIRST_ROWS ? { firstScreenOf: whole.approvals.length } : {}),
  };
}

describe.each(providers)("the inbox page's first screen on %s", (provider) => {
  let t: TestDb;
  let rec: Record<string, unknown>;
  beforeAll(async () => {
    t = await freshDatabase(provider);
    const rt = createRuntime(t.db);
    await rt.runner.run(rt.agent("deploy-bot"), {
      userMessage: JSON.stringify({ service: "web", version: "1.0.0", environment: "production" }),
      runId: "model",
    });
    const [row] = (await pendingApprovals(t.db, { take: 1 })).rows;
    rec = JSON.parse(row.text);
  });
  afterAll(() => t?.drop());

  // n pending approvals (rows sharing a millisecond three by three), the first `routedAway` of them routed to
  // a group the finance reviewer is not in.
  async function inbox(n: number, { routedAway = 0 } = {}) {
    await t.db.approvalGroup.deleteMany();
    await t.db.approval.deleteMany();
    await putApprovalCopies(t.db, rec, n, (k) => ({
      runId: `fs${String(k).padStart(4, "0")}`,
      args: { service: `svc-${k}`, version: "1.0.0", environment: "production" },
      groups: k < routedAway ? ["ops"] : [],
      requested_at_ms: 1_800_000_000_000 + Math.floor(k / 3),
    }));
  }

  async function check(who: Actor) {
    const ctx = { db: t.db };
    const first = await inboxFirstScreen(ctx, who, FIRST_ROWS);
    const { asOfMs, ...rest } = first;
    expect(asOfMs).toBeGreaterThan(0);
    expect(rest).toEqual(screenOf(await listInbox(ctx, who, { query: {} })));
    expect(first.approvals.some((a) => "reason" in a || "version" in a)).toBe(false);
    // As the page passes it to the inbox (rows as arrays of their values) and the inbox reads it back.
    const packed = packFirstScreen(first);
    expect(packed.rows.every((r) => Array.isArray(r))).toBe(true);
    expect(unpackFirstScreen(structuredClone(packed))).toEqual(first);
    return first;
  }

  it("is the whole page when it fits a screen, else its first rows, the page's count and where the next page starts", async () => {
    for (const [n, shown, count, next] of [
      [0, 0, undefined, false],
      [1, 1, undefined, false],
      [FIRST_ROWS, FIRST_ROWS, undefined, false],
      [FIRST_ROWS + 1, FIRST_ROWS, FIRST_ROWS + 1, false],
      [120, FIRST_ROWS, 120, false],
      [200, FIRST_ROWS, 200, false],
      [201, FIRST_ROWS, 200, true],
      [450, FIRST_ROWS, 200, true],
    ] as const) {
      await inbox(n);
      for (const who of [rev, finance, admin]) {
        const first = await check(who);
        expect([n, first.approvals.length, first.firstScreenOf, first.nextCursor !== null]).toEqual([n, shown, count, next]);
      }
    }
  });

  it("puts what this reviewer may decide first, however far down the page it is", async () => {
    // The first 30 rows are routed to ops: the finance reviewer's first screen starts at the 31st.
    await inbox(260, { routedAway: 30 });
    const first = await check(finance);
    expect(first.approvals.map((a) => a.id)[0]).toBe("fs0030:2:call_deploy");
    expect(first.approvals.every((a) => a.canDecide)).toBe(true);
    expect((await check(admin)).approvals[0].id).toBe("fs0000:2:call_deploy");
    // Fewer than a screen of them: the read-only rows follow, oldest first.
    await inbox(150, { routedAway: 140 });
    const few = await check(finance);
    expect(few.approvals.map((a) => a.canDecide)).toEqual([...Array(10).fill(true), ...Array(FIRST_ROWS - 10).fill(false)]);
    expect(few.approvals[10].id).toBe("fs0000:2:call_deploy");
    expect(few.firstScreenOf).toBe(150);
  });

  it("lists an unreadable record among its first rows apart, and counts only the readable ones", async () => {
    await inbox(205);
    const [, second] = (await pendingApprovals(t.db, { take: 2 })).rows;
    await t.db.approval.update({ where: { id: second.id }, data: { record: "{not json" } });
    const first = await check(rev);
    expect(first.corrupt).toEqual([expect.objectContaining({ key: approvalName(second.id), error: "AgentCheckpointCorruptionError" })]);
    expect(first.approvals.map((a) => a.id)).not.toContain("fs0001:2:call_deploy");
    expect(first.firstScreenOf).toBe(200);
  });
});
