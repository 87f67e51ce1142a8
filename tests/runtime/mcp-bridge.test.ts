// The MCP elicitation bridge with the real @modelcontextprotocol/sdk, each MCP client in a process of its own
// (the SDK's McpServer asks through elicitInput; the client's handler is elicitationBridge): a delivered
// answer is never handed to a new request asking the same question; a bridge that died before a decision
// delivers it when it asks again; the server's timeout withdraws the question from every inbox; progress
// notifications keep a question alive past the server's timeout (resetTimeoutOnProgress).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { listInbox } from "@/lib/services/inbox";
import { getRunView } from "@/lib/services/run-view";
import { createToken } from "@/lib/services/tokens";
import { admin, rev } from "../helpers/actors";
import { testContext } from "../helpers/context";
import { freshDatabase, type TestDb } from "../helpers/databases";
import { protocolServer } from "../helpers/protocol-server";
import { executionsIn, runRuntime } from "../helpers/runtime-process";

const root = path.resolve(import.meta.dirname, "../..");
const fixture = path.join(root, "tests/fixtures/runtimes/mcp-elicitation.ts");

describe("MCP elicitation bridge in client processes of its own (SQLite)", () => {
  let t: TestDb;
  let ctx: AppContext;
  let server: Awaited<ReturnType<typeof protocolServer>>;
  let env: { AFK_URL: string; AFK_TOKEN: string };
  const procs: ChildProcess[] = [];
  const g = globalThis as unknown as { afkContext?: AppContext; afkDb?: AppContext["db"] };
  beforeAll(async () => {
    t = await freshDatabase("sqlite");
    ctx = testContext(t.db);
    g.afkDb = t.db;
    g.afkContext = ctx;
    server = await protocolServer();
    const { token } = await createToken(ctx, admin, { body: { name: "bridge", role: "runtime" } });
    env = { AFK_URL: server.url, AFK_TOKEN: token };
  });
  afterAll(async () => {
    for (const p of procs) p.kill("SIGKILL");
    await server?.close();
    g.afkContext = undefined;
    g.afkDb = undefined;
    await t?.drop();
  });

  const ask = (dir: string, extra: Record<string, string> = {}) =>
    runRuntime("mcp-elicitation.ts", "ask", dir, { ...env, ...extra }) as Promise<{ result: string; isError: boolean; runId: string }>;
  // A question in the inbox that is none of those seen before.
  const newQuestion = async (message: string, seen: Set<string>) => {
    for (;;) {
      const q = (await listInbox(ctx, rev, { query: {} })).approvals.find(
        (a) => a.kind === "question" && a.summary.includes(message) && !seen.has(a.id),
      );
      if (q) {
        seen.add(q.id);
        return q;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const answer = (approvalId: string, plan: string) => decide(ctx, rev, { approvalId, body: { decision: "respond", answer: { plan } } });

  it("a delivered answer is never replayed to a new request; a bridge that died before the decision delivers it on its return", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "afk-bridge-"));
    const seen = new Set<string>();
    const first = ask(dir);
    await answer((await newQuestion("Which plan?", seen)).id, "basic");
    expect(JSON.parse((await first).result)).toEqual({ action: "accept", content: { plan: "basic" } });

    // The same question in a new process (the same default id): a new question in the inbox, its own answer.
    const second = ask(dir);
    await answer((await newQuestion("Which plan?", seen)).id, "pro");
    expect(JSON.parse((await second).result)).toEqual({ action: "accept", content: { plan: "pro" } });

    // A bridge that dies while its question waits; the reviewer answers; the bridge asks again and gets it.
    const dying = spawn(process.execPath, ["--import", "tsx", fixture, "ask", dir], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: "ignore",
    });
    procs.push(dying);
    const orphan = await newQuestion("Which plan?", seen);
    dying.kill("SIGKILL");
    await new Promise((r) => dying.once("exit", r));
    await answer(orphan.id, "basic");
    const back = await ask(dir);
    expect(JSON.parse(back.result)).toEqual({ action: "accept", content: { plan: "basic" } });
    // No further question was parked for it: it took the undelivered answer.
    const questions = (await getRunView(ctx, rev, { runId: back.runId })).approvals.filter((a) => a.kind === "question");
    expect(questions.map((q) => q.status)).toEqual(["responded", "responded", "responded"]);
    expect(executionsIn(dir).map((e) => (e.plan as { content: { plan: string } }).content.plan)).toEqual(["basic", "pro", "basic"]);
  }, 240_000);

  it("the server's timeout withdraws the question; progress notifications keep one alive past it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "afk-bridge-timeout-"));
    const seen = new Set<string>();
    // Without progress: the server gives up after 3 s; the question leaves every inbox and cannot be decided.
    const [timedOut, kept] = await Promise.all([
      ask(dir, { QUESTION: "Which region?", ASK_TIMEOUT_MS: "3000" }),
      (async () => {
        const waiting = ask(dir, { QUESTION: "Which size?", ASK_TIMEOUT_MS: "3000", PROGRESS: "1", PROGRESS_EVERY_MS: "500" });
        const q = await newQuestion("Which size?", seen);
        // Past the server's 3 s timeout: the progress notifications reset it.
        await new Promise((r) => setTimeout(r, 5_000));
        await answer(q.id, "pro");
        return waiting;
      })(),
    ]);
    expect(timedOut.isError).toBe(true);
    expect(timedOut.result).toMatch(/timed out/i);
    expect(JSON.parse(kept.result)).toEqual({ action: "accept", content: { plan: "pro" } });
    const view = await getRunView(ctx, rev, { runId: timedOut.runId });
    const region = view.approvals.find((a) => a.kind === "question" && a.reason.includes("Which region?"));
    expect([region?.status, region?.decisions.map((d) => d.by)]).toEqual(["expired", ["system:withdrawn"]]);
    expect((await listInbox(ctx, rev, { query: {} })).approvals.some((a) => a.id === region?.id)).toBe(false);
    const late = await decide(ctx, rev, { approvalId: region!.id, body: { decision: "respond", answer: { plan: "pro" } } }).catch(
      (e: unknown) => e as { status: number },
    );
    expect((late as { status: number }).status).toBe(409);
  }, 240_000);
});
