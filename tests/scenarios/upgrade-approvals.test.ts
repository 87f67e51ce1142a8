import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import { runtimeFromToken } from "@/lib/auth/tokens";
import type { Db } from "@/lib/db/client";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { listInbox, pendingCount } from "@/lib/services/inbox";
import { resumeRun } from "@/lib/services/operate";
import { getRunView } from "@/lib/services/run-view";
import { claimDecision } from "@/lib/services/runtime-claim";
import { listDecisions } from "@/lib/services/runtime-protocol";
import { testContext } from "../helpers/context";
import { providers } from "../helpers/databases";
import { fromFixture, status } from "../helpers/upgrade";

const root = path.resolve(import.meta.dirname, "../..");
const fixtures = path.join(root, "tests/fixtures/d9e30e8");
type Scenario = "toolApproval" | "question" | "subagentGate" | "modelCallGate" | "quorumHalf" | "external";
type Written = { runs: Record<Scenario, string>; runtimeToken: string };
const written: Record<"sqlite" | "postgresql", Written> = JSON.parse(readFileSync(path.join(fixtures, "fixture.json"), "utf8"));

/** The migration that moves approvals out of the key-value table (docs/approvals.md). */
const APPROVALS_MIGRATION = "20261214000000_approvals";
const migrationsOf = (provider: "sqlite" | "postgresql") =>
  readdirSync(path.join(root, "prisma", provider === "sqlite" ? "sqlite" : "postgres", "migrations"))
    .filter((n) => /^\d{14}_/.test(n))
    .sort();

describe.each(providers)("a database written by d9e30e8 (approvals in the key-value table), on %s", (provider) => {
  const { runs: ids, runtimeToken } = written[provider];
  let t: { db: Db; drop: () => Promise<void> };
  let ctx: AppContext;
  const who: Record<string, Actor> = {};
  beforeAll(async () => {
    t = await fromFixture(fixtures, "upgrade-d9", provider);
    ctx = testContext(t.db);
    for (const u of await t.db.user.findMany())
      who[u.email.split("@")[0]] = { id: u.id, email: u.email, name: u.name, role: u.role as Actor["role"], groups: JSON.parse(u.groups) };
  });
  afterAll(async () => {
    await ctx?.worker.idle();
    await t?.drop();
  });
  const view = (scenario: Scenario) => getRunView(ctx, who.operator, { runId: ids[scenario] });
  const pendingOf = async (scenario: Scenario) =>
    (await getRunView(ctx, who.reviewer, { runId: ids[scenario] })).approvals.filter((a) => a.status === "pending");
  // A decision resumes a run whose agent resumes by itself; release-planner's waits for Resume.
  const settle = async (scenario: Scenario) => {
    await ctx.worker.idle();
    const v = await view(scenario);
    if (v.run.state === "paused" && v.canResume) {
      await resumeRun(ctx, who.reviewer, { runId: ids[scenario] });
      await ctx.worker.idle();
    }
    return (await view(scenario)).run.state;
  };

  it("moves every approval into its table, typed, and lists every pending one in the inbox", async () => {
    // Every migration applied; the approvals' sorts after those written since d9e30e8, so a database that
    // has them applies it last.
    const folders = migrationsOf(provider);
    const applied = await t.db.$queryRawUnsafe<{ migration_name: string }[]>(
      `SELECT "migration_name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`,
    );
    expect(applied.map((m) => m.migration_name).sort()).toEqual(folders);
    expect(folders.indexOf(APPROVALS_MIGRATION)).toBeGreaterThan(folders.indexOf("20261213100000_handoffs"));
    expect(await t.db.stateEntry.count({ where: { kind: "approval" } })).toBe(0);
    const rows = await t.db.approval.findMany({ orderBy: { id: "asc" } });
    const scenarioOf = (rootRunId: string) => Object.entries(ids).find(([, id]) => id === rootRunId)?.[0];
    expect(
      rows.map((r) => [scenarioOf(r.rootRunId), r.kind, r.toolName, r.status, r.decidedBy, r.decision, r.decidedAtMs !== null]).sort(),
    ).toEqual(
      [
        ["toolApproval", "tool", "issue_refund", "pending", null, null, false],
        ["toolApproval", "tool", "notify_customer", "pending", null, null, false],
        ["question", "question", "request_user_input", "pending", null, null, false],
        ["subagentGate", "subagent", "delegate_to_changelog_writer", "pending", null, null, false],
        ["modelCallGate", "subagent", "delegate_to_changelog_writer", "approved", "reviewer@example.com", "approve", true],
        ["modelCallGate", "llm", "llm_call", "pending", null, null, false],
        ["quorumHalf", "tool", "deploy", "pending", null, null, false],
        ["external", "tool", "issue_refund", "approved", "reviewer@example.com", "approve", true],
        ["external", "tool", "issue_refund", "pending", null, null, false],
      ].sort(),
    );
    // Each row's columns are its record's.
    for (const r of rows) {
      const rec = JSON.parse(r.record);
      expect([r.id, r.runId, r.step, r.version, Number(r.requestedAtMs)]).toEqual([
        rec.id,
        rec.run_id,
        rec.step,
        rec.version,
        rec.requested_at_ms,
      ]);
    }
    const inbox = await listInbox({ db: t.db }, who.reviewer2, { query: {} });
    expect(inbox.corrupt).toEqual([]);
    expect(inbox.approvals.map((a) => [scenarioOf(a.runId), a.kind, a.tool, a.approvals, a.quorum]).sort()).toEqual(
      [
        ["toolApproval", "tool", "issue_refund", 0, 1],
        ["toolApproval", "tool", "notify_customer", 0, 1],
        ["question", "question", "request_user_input", 0, 1],
        ["subagentGate", "subagent", "delegate_to_changelog_writer", 0, 1],
        ["modelCallGate", "llm", "llm_call", 0, 1],
        ["quorumHalf", "tool", "deploy", 1, 2],
        ["external", "tool", "issue_refund", 0, 1],
      ].sort(),
    );
    expect((await pendingCount({ db: t.db }, who.reviewer)).pending).toBe(7);
    expect((await listInbox({ db: t.db }, who.reviewer, { query: { framework: "openai-agents" } })).approvals.map((a) => a.runId)).toEqual([
      ids.external,
    ]);
  });

  it("tool approvals are decided and the run refunds and notifies once", async () => {
    for (const a of await pendingOf("toolApproval"))
      await decide(ctx, who.reviewer, { approvalId: a.id, body: { decision: "approve", argsHash: a.argsHash } });
    expect(await settle("toolApproval")).toBe("completed");
    expect((await t.db.refund.findMany({ where: { runId: ids.toolApproval } })).map((r) => r.amountCents)).toEqual([9000]);
    expect(await t.db.outboxMessage.count({ where: { runId: ids.toolApproval } })).toBe(1);
  });

  it("a question is answered and its run completes with the answer", async () => {
    const [q] = await pendingOf("question");
    await decide(ctx, who.reviewer, { approvalId: q.id, body: { decision: "respond", answer: { plan: "team", seats: 12 } } });
    expect(await settle("question")).toBe("completed");
    expect((await view("question")).conversation!.messages.at(-1)?.content).toBe("Set up Acme on team with 12 seats; welcome sent.");
  });

  it("a subagent gate, then its model-call gate, are approved; the run completes", async () => {
    const [gate] = await pendingOf("subagentGate");
    expect(gate.kind).toBe("subagent");
    await decide(ctx, who.reviewer, { approvalId: gate.id, body: { decision: "approve" } });
    expect(await settle("subagentGate")).toBe("paused");
    const [llm] = await pendingOf("subagentGate");
    expect(llm).toMatchObject({ kind: "llm", step: 2 });
    await decide(ctx, who.reviewer2, { approvalId: llm.id, body: { decision: "approve" } });
    expect(await settle("subagentGate")).toBe("completed");
  });

  it("a model-call gate written before the upgrade is approved; the subagent that ran before is not run again", async () => {
    const [llm] = await pendingOf("modelCallGate");
    expect(llm).toMatchObject({ kind: "llm", tool_name: "llm_call" });
    await decide(ctx, who.reviewer2, { approvalId: llm.id, body: { decision: "approve" } });
    expect(await settle("modelCallGate")).toBe("completed");
    expect((await view("modelCallGate")).conversation!.children.call_notes.messages.filter((m) => m.role === "assistant")).toHaveLength(1);
  });

  it("a half-decided quorum takes a second reviewer's decision (never the first's again) and deploys once", async () => {
    const [a] = await pendingOf("quorumHalf");
    expect(a.decisions.map((d) => d.by)).toEqual(["reviewer@example.com"]);
    expect(await status(decide(ctx, who.reviewer, { approvalId: a.id, body: { decision: "approve" } }))).toBe(409);
    expect(await decide(ctx, who.reviewer2, { approvalId: a.id, body: { decision: "approve" } })).toMatchObject({
      approval: { status: "approved" },
    });
    expect(await settle("quorumHalf")).toBe("completed");
    expect(await t.db.deployment.count({ where: { runId: ids.quorumHalf } })).toBe(1);
  });

  it("the external runtime reads its decisions, the one decided before the upgrade and one decided after, and claims each once", async () => {
    const rt = await runtimeFromToken(t.db, runtimeToken);
    expect(rt).not.toBeNull();
    const before = await listDecisions(ctx, rt, { runId: ids.external, query: {} });
    expect(before.decisions.map((d) => [d.interruptId, d.decision])).toEqual([["call_a", "approve"]]);
    expect(before.pending).toBe(1);
    const [b] = await pendingOf("external");
    expect(b.tool_call_id).toBe("call_b");
    // Edited arguments are still checked against the schema the runtime parked with.
    expect(
      await status(
        decide(ctx, who.reviewer, { approvalId: b.id, body: { decision: "approve", args: { order_id: "ORD-7", amount_cents: -1 } } }),
      ),
    ).toBe(400);
    await decide(ctx, who.reviewer, { approvalId: b.id, body: { decision: "reject", reason: "Not this one" } });
    const after = await listDecisions(ctx, rt, { runId: ids.external, query: {} });
    expect(after.decisions.map((d) => [d.interruptId, d.decision, d.message])).toEqual([
      ["call_a", "approve", null],
      ["call_b", "reject", "Not this one"],
    ]);
    expect(after.pending).toBe(0);
    for (const interruptId of ["call_a", "call_b"]) {
      const claimed = await claimDecision(ctx, rt, { runId: ids.external, interruptId, body: { claimant: "p1" } });
      expect(claimed.decision.interruptId).toBe(interruptId);
      expect(await status(claimDecision(ctx, rt, { runId: ids.external, interruptId, body: { claimant: "p2" } }))).toBe(409);
    }
  });

  it("nothing is left waiting", async () => {
    expect((await listInbox({ db: t.db }, who.reviewer, { query: {} })).approvals).toEqual([]);
    expect((await pendingCount({ db: t.db }, who.reviewer)).pending).toBe(0);
  });
});
