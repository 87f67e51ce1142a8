// The adapters against the real frameworks from npm, each runtime in processes of its own: one process runs
// the agent until it asks, parks the request in the console and exits; a reviewer decides in the console;
// a different process applies the decisions and runs to the end. The tools append every execution to a
// file, so the test counts exactly what ran, with which arguments.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { listInbox } from "@/lib/services/inbox";
import { getRunView } from "@/lib/services/run-view";
import { createToken } from "@/lib/services/tokens";
import { rev } from "../helpers/actors";
import { testContext } from "../helpers/context";
import { freshDatabase, type TestDb } from "../helpers/databases";
import { protocolServer } from "../helpers/protocol-server";
import { executionsIn as executions, type RuntimeScript, runRuntime } from "../helpers/runtime-process";

describe("adapters against the real packages, resumed in another process (SQLite)", () => {
  let t: TestDb;
  let ctx: AppContext;
  let server: Awaited<ReturnType<typeof protocolServer>>;
  let env: { AFK_URL: string; AFK_TOKEN: string };
  const g = globalThis as unknown as { afkContext?: AppContext; afkDb?: AppContext["db"] };
  beforeAll(async () => {
    t = await freshDatabase("sqlite");
    ctx = testContext(t.db);
    g.afkDb = t.db;
    g.afkContext = ctx;
    server = await protocolServer();
    const { token } = await createToken(
      ctx,
      { id: "u-admin", email: "admin@example.com", name: "A", role: "admin" },
      { body: { name: "adapters", role: "runtime" } },
    );
    env = { AFK_URL: server.url, AFK_TOKEN: token };
  });
  afterAll(async () => {
    await server?.close();
    g.afkContext = undefined;
    g.afkDb = undefined;
    await t?.drop();
  });

  const runtime = (script: RuntimeScript, mode: string, dir: string) => runRuntime(script, mode, dir, env);

  it("OpenAI Agents JS: needsApproval → interruptions parked → approve / reject(message) on the deserialized RunState", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "afk-agents-js-"));
    const started = (await runtime("openai-agents.ts", "start", dir)) as { runId: string; interrupts: string[] };
    expect(started.interrupts).toEqual(["call_big", "call_small"]);
    expect(executions(dir)).toEqual([]);
    const view = await getRunView(ctx, rev, { runId: started.runId });
    const big = view.approvals.find((a) => a.tool_call_id === "call_big")!;
    const small = view.approvals.find((a) => a.tool_call_id === "call_small")!;
    expect([big.args, big.external?.decisions]).toEqual([{ order_id: "A-1", amount_cents: 250000 }, ["approve", "reject"]]);
    // The resuming process starts before anyone decides: its long-poll is woken by the decisions.
    const resumed = runtime("openai-agents.ts", "resume", dir);
    await new Promise((r) => setTimeout(r, 1500));
    await decide(ctx, rev, { approvalId: big.id, body: { decision: "reject", reason: "Too large without a manager" } });
    await decide(ctx, rev, { approvalId: small.id, body: { decision: "approve", argsHash: small.argsHash } });
    const done = (await resumed) as { final: string; pid: number };
    expect(done.final).toBe("Done: 2 results");
    // Exactly the approved call ran, once, in the resuming process.
    expect(executions(dir).map((e) => [e.order_id, e.amount_cents, e.pid])).toEqual([["A-2", 900, done.pid]]);
    const after = await getRunView(ctx, rev, { runId: started.runId });
    expect(after.run.state).toBe("completed");
    expect(after.conversation?.messages.at(-1)).toMatchObject({ role: "assistant", content: "Done: 2 results" });
  });

  it("OpenAI Agents JS: a process that died after claiming comes back as the same claimant; another copy of the state applies nothing", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "afk-agents-js-claimant-"));
    const started = (await runRuntime("openai-agents.ts", "start", dir, { ...env, EXTERNAL_ID: "agents-js-claimant" })) as {
      runId: string;
    };
    const view = await getRunView(ctx, rev, { runId: started.runId });
    for (const a of view.approvals)
      await decide(ctx, rev, {
        approvalId: a.id,
        body: a.tool_call_id === "call_small" ? { decision: "approve" } : { decision: "reject", reason: "No" },
      });
    const died = (await runtime("openai-agents.ts", "claim-and-die", dir)) as { claimant: string };
    expect(died.claimant).toMatch(/^claimant-/);
    // Another process with its own claimant: the decisions are held, nothing runs.
    const other = (await runtime("openai-agents.ts", "resume-as-another", dir)) as { outcome: string };
    expect(other.outcome).toBe(`claimed by another: ${died.claimant}`);
    expect(executions(dir)).toEqual([]);
    // The one that died resumes from the state it saved (its claimant inside): it gets them again and runs.
    const done = (await runtime("openai-agents.ts", "resume", dir)) as { final: string; pid: number };
    expect(done.final).toBe("Done: 2 results");
    expect(executions(dir).map((e) => [e.order_id, e.pid])).toEqual([["A-2", done.pid]]);
  });

  it("LangGraph JS: interrupt() with the HITL request shape, a SQLite checkpointer → approve / edit / reject by Command({ resume })", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "afk-langgraph-"));
    const started = (await runtime("langgraph.ts", "start", dir)) as { runId: string; interrupts: string[] };
    expect(started.interrupts).toHaveLength(3);
    const view = await getRunView(ctx, rev, { runId: started.runId });
    const [scale, page, drop] = ["scale_service", "page_oncall", "drop_cache"].map((n) => view.approvals.find((a) => a.tool_name === n)!);
    expect(new Set(view.approvals.map((a) => a.external?.batch_id)).size).toBe(1);
    await decide(ctx, rev, {
      approvalId: scale.id,
      body: { decision: "approve", args: { service: "checkout", replicas: 6 }, argsHash: scale.argsHash },
    });
    await decide(ctx, rev, { approvalId: page.id, body: { decision: "approve" } });
    await decide(ctx, rev, { approvalId: drop.id, body: { decision: "reject", reason: "Not during the sale" } });
    const done = (await runtime("langgraph.ts", "resume", dir)) as { results: string[]; pid: number };
    expect(done.results).toEqual(["scale_service done", "page_oncall done", "rejected: Not during the sale"]);
    // The edited arguments ran, exactly once each, in the resuming process.
    expect(executions(dir).map((e) => [e.name, e.args, e.pid])).toEqual([
      ["scale_service", { service: "checkout", replicas: 6 }, done.pid],
      ["page_oncall", { team: "payments" }, done.pid],
    ]);
    expect((await getRunView(ctx, rev, { runId: started.runId })).run.state).toBe("completed");
  });

  it("Vercel AI SDK: needsApproval → approval requests parked → approval responses from the decisions, resumed in another process", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "afk-ai-sdk-"));
    const started = (await runtime("ai-sdk.ts", "start", dir)) as { runId: string; interrupts: string[] };
    expect(started.interrupts).toHaveLength(2);
    expect(executions(dir)).toEqual([]);
    const view = await getRunView(ctx, rev, { runId: started.runId });
    // The interrupt is the SDK's approval request; the call it is for is kept beside it.
    const big = view.approvals.find((a) => a.external?.call_id === "call_big")!;
    const small = view.approvals.find((a) => a.external?.call_id === "call_small")!;
    expect([big.args, big.external?.decisions]).toEqual([{ order_id: "B-1", amount_cents: 250000 }, ["approve", "reject"]]);
    expect(started.interrupts).toEqual([big.tool_call_id, small.tool_call_id]);
    const resumed = runtime("ai-sdk.ts", "resume", dir);
    await new Promise((r) => setTimeout(r, 1500));
    await decide(ctx, rev, { approvalId: big.id, body: { decision: "reject", reason: "Too large without a manager" } });
    await decide(ctx, rev, { approvalId: small.id, body: { decision: "approve", argsHash: small.argsHash } });
    const done = (await resumed) as { final: string; denied: number; pid: number };
    // The model saw the approved call's result and the denial (with the reviewer's reason) as two results.
    expect([done.final, done.denied]).toEqual(["Done: 2 results", 1]);
    expect(executions(dir).map((e) => [e.order_id, e.amount_cents, e.pid])).toEqual([["B-2", 900, done.pid]]);
    expect((await getRunView(ctx, rev, { runId: started.runId })).run.state).toBe("completed");
  });

  it("MCP elicitation: a server's elicitation/create parked as a question with its schema; accept with the answer, decline", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "afk-mcp-"));
    const finished = runtime("mcp-elicitation.ts", "run", dir);
    const question = async (message: string) => {
      for (;;) {
        const inbox = await listInbox(ctx, rev, { query: {} });
        const q = inbox.approvals.find((a) => a.kind === "question" && a.summary.includes(message));
        if (q) return q;
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const plan = await question("Which plan");
    const bad = await decide(ctx, rev, { approvalId: plan.id, body: { decision: "respond", answer: { plan: "gold" } } }).catch(
      (e: unknown) => e,
    );
    expect((bad as { field?: string }).field).toBe("answer.plan");
    await decide(ctx, rev, { approvalId: plan.id, body: { decision: "respond", answer: { plan: "pro" } } });
    const wipe = await question("Delete the old account");
    await decide(ctx, rev, { approvalId: wipe.id, body: { decision: "reject", reason: "Keep it for now" } });
    const done = (await finished) as { runId: string; result: string };
    expect(done.result).toBe("plan accept, wipe decline");
    expect(executions(dir)).toEqual([{ plan: { action: "accept", content: { plan: "pro" } }, wipe: { action: "decline" } }]);
    expect((await getRunView(ctx, rev, { runId: done.runId })).run.external?.framework).toBe("mcp");
  });
});
