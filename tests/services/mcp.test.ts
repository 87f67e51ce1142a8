// MCP tools end to end: a real MCP server (scripts/mcp-notes-server.mjs, official SDK) over stdio
// and over streamable HTTP. Its write_note does not de-duplicate itself: each execution is a line in its
// log, so the lines count executions. A policy glob on the MCP tool names asks for approval; the tool
// runs once after it; the idempotency key reaches the server; a crash between the tool and its effect
// record executes it again with the same key (the window only a key-aware server can close).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { McpServerConfig } from "@/lib/agents/mcp";
import type { Actor } from "@/lib/auth/actor";
import { testContext } from "../helpers/context";
import { decide } from "@/lib/services/decide";
import { retryRun } from "@/lib/services/operate";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { type Agent, toolIdempotencyKey } from "@/lib/runner";
import { mcpConnections } from "@/lib/runtime";
import { freshDatabase, providers } from "../helpers/databases";
import { scriptedModel } from "../helpers/scripted-model";

const sub: Actor = { id: "u-sub", email: "submitter@example.com", name: "S", role: "submitter" };
const rev: Actor = { id: "u-rev", email: "reviewer@example.com", name: "R", role: "reviewer" };
const op: Actor = { id: "u-op", email: "operator@example.com", name: "Op", role: "operator" };
const fixture = path.resolve(import.meta.dirname, "../../scripts/mcp-notes-server.mjs");
const dir = mkdtempSync(path.join(os.tmpdir(), "afk-mcp-"));
const procs: ChildProcess[] = [];
afterAll(async () => {
  await mcpConnections().close();
  for (const p of procs) p.kill();
});

const lines = (file: string) =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id: string; text: string; key: string | null })
    : [];

// Turn 1 reads a note and writes one; turn 2 says what the tools answered.
const model = scriptedModel("script", (turn, req) => ({
  text:
    turn === 1
      ? "noting it"
      : `done: ${req.messages
          .filter((m) => m.role === "tool")
          .map((m) => m.content)
          .join(" | ")}`,
  calls:
    turn === 1
      ? [
          { id: "c_read", name: "notes__read_note", args: { id: "n1" } },
          { id: "c_write", name: "notes__write_note", args: { id: "n1", text: "call the customer back" } },
        ]
      : [],
}));

const agent: Agent = {
  name: "note-taker",
  model: "script:notes",
  instructions: "Take notes.",
  tools: [],
  inputSchema: z.object({}),
  toUserMessage: () => "note it",
  policy: [{ id: "mcp-writes", tool: "notes__write_*", action: "require_approval", reason: "Writes to the notebook are reviewed" }],
};
const stdio = (log: string): McpServerConfig => ({
  name: "notes",
  transport: { type: "stdio", command: process.execPath, args: [fixture, log] },
});

describe.each(providers)("MCP tools on %s", (provider) => {
  it("a policy glob holds the MCP write for approval; it runs once after it, with the run's idempotency key", async () => {
    const t = await freshDatabase(provider);
    const log = path.join(dir, `${provider}-once.jsonl`);
    const ctx = testContext(t.db, {
      agents: { "note-taker": { ...agent, tools: [] } },
      mcp: { "note-taker": [stdio(log)] },
      models: { script: model },
    });
    try {
      const { id } = await startRun(ctx, sub, { body: { agent: "note-taker", input: {} } });
      await ctx.worker.idle();
      let view = await getRunView(ctx, rev, { runId: id });
      expect(view.run.state).toBe("paused");
      expect(view.approvals.map((a) => [a.tool_name, a.mcp, a.status])).toEqual([
        ["notes__write_note", { server: "notes", tool: "write_note" }, "pending"],
      ]);
      // The approval shows the MCP tool's own argument schema (from the server's listing).
      expect(view.approvals[0].argsSchema).toMatchObject({ properties: { id: { type: "string" }, text: { type: "string" } } });
      expect(lines(log)).toEqual([]);
      // The decision completes the step: the run resumes by itself.
      expect((await decide(ctx, rev, { approvalId: view.approvals[0].id, body: { decision: "approve" } })).resumed).toBe(true);
      await ctx.worker.idle();
      view = await getRunView(ctx, rev, { runId: id });
      expect(view.run.state).toBe("completed");
      expect(lines(log)).toEqual([{ id: "n1", text: "call the customer back", key: toolIdempotencyKey(id, 1, "c_write") }]);
      const last = view.conversation!.messages.at(-1);
      expect(last?.content).toBe("done: no note n1 | saved n1");
    } finally {
      await ctx.worker.idle();
      await t.drop();
    }
  });

  it("a crash after the MCP call and before its effect record calls it again on retry, with the same key", async () => {
    const t = await freshDatabase(provider);
    const log = path.join(dir, `${provider}-crash.jsonl`);
    // Only the write: with the read beside it in one parallel batch, the failpoint could fire after the read
    // and before the write started.
    const writeOnly = scriptedModel("script", (turn) => ({
      text: turn === 1 ? "noting it" : "done",
      calls: turn === 1 ? [{ id: "c_write", name: "notes__write_note", args: { id: "n1", text: "call the customer back" } }] : [],
    }));
    const lax = { ...agent, tools: [], policy: [] };
    const crashing = testContext(t.db, {
      agents: { "note-taker": lax },
      mcp: { "note-taker": [stdio(log)] },
      models: { script: writeOnly },
      config: { failpoint: { at: "tool_executed", action: "throw" } },
    });
    const { id } = await startRun(crashing, sub, { body: { agent: "note-taker", input: {} } });
    await crashing.worker.idle();
    expect((await t.db.run.findUnique({ where: { id } }))?.state).toBe("failed");
    const first = lines(log);
    expect(first).toHaveLength(1);
    const healthy = testContext(t.db, {
      agents: { "note-taker": lax },
      mcp: { "note-taker": [stdio(log)] },
      models: { script: writeOnly },
    });
    await retryRun(healthy, op, { runId: id });
    await healthy.worker.idle();
    expect((await t.db.run.findUnique({ where: { id } }))?.state).toBe("completed");
    // Executed twice (this server does not de-duplicate), and both times with the same key: a server that
    // keys its writes on it writes once.
    const all = lines(log);
    expect(all).toHaveLength(2);
    expect(new Set(all.map((l) => l.key))).toEqual(new Set([toolIdempotencyKey(id, 1, "c_write")]));
    await t.drop();
  });
});

describe("MCP over streamable HTTP", () => {
  it("lists and calls the server's tools; a tool error reaches the model as a failed call", async () => {
    const log = path.join(dir, "http.jsonl");
    // Port 0: the server takes a free port and names it (a random one collided with ports in use).
    const p = spawn(process.execPath, [fixture, log, "--http", "0"], { stdio: ["ignore", "pipe", "inherit"] });
    procs.push(p);
    const port = await new Promise<number>((r) => p.stdout!.once("data", (d) => r(Number(/on (\d+)/.exec(String(d))![1]))));
    const t = await freshDatabase("sqlite");
    const failing = scriptedModel("script", (turn, req) => ({
      text:
        turn === 1
          ? "trying"
          : `result: ${req.messages
              .filter((m) => m.role === "tool")
              .map((m) => m.content)
              .join(" | ")}`,
      calls:
        turn === 1
          ? [
              { id: "w", name: "web__write_note", args: { id: "h1", text: "over http" } },
              { id: "f", name: "web__fail", args: {} },
            ]
          : [],
    }));
    const ctx = testContext(t.db, {
      agents: { "note-taker": { ...agent, tools: [], policy: [] } },
      mcp: { "note-taker": [{ name: "web", transport: { type: "http", url: `http://127.0.0.1:${port}/mcp` } }] },
      models: { script: failing },
    });
    const { id } = await startRun(ctx, sub, { body: { agent: "note-taker", input: {} } });
    await ctx.worker.idle();
    const view = await getRunView(ctx, op, { runId: id });
    expect(view.run.state).toBe("completed");
    const tools = view.conversation!.messages.filter((m) => m.role === "tool");
    expect(tools.map((m) => (m as { success: boolean }).success)).toEqual([true, false]);
    expect(tools[1].content).toMatch(/MCP server web: fail failed: the notebook is read-only today/);
    expect(lines(log)).toEqual([{ id: "h1", text: "over http", key: toolIdempotencyKey(id, 1, "w") }]);
    await t.drop();
  });
});
