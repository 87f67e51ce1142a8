// The runtime client as a user gets it: packed (`npm pack`), installed from the tarball into a fresh ESM
// project and a fresh CommonJS project beside the frameworks from the npm registry, and the package
// README's examples run there verbatim on Node 20 and on Node 24 against a console on a real port: parked
// in one process, decided over REST with a reviewer's token, resumed in another process. The tools append
// every execution to a file, so the test counts exactly what ran. Nothing here imports the package's source.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { createToken } from "@/lib/services/tokens";
import { nodeOf, supported } from "../../scripts/node-runtime.mjs";
import { admin } from "../helpers/actors";
import { testContext } from "../helpers/context";
import { freshDatabase, type TestDb } from "../helpers/databases";
import { protocolServer } from "../helpers/protocol-server";
import { executionsIn } from "../helpers/runtime-process";
import { scratchDatabase } from "../helpers/scratch";

const exec = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const pkgDir = path.join(root, "packages/client");
const readme = readFileSync(path.join(pkgDir, "README.md"), "utf8");
const rootPkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
const dependencies = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).dependencies as Record<string, string>;

/** The README's code block that starts with `// <name>`. */
function block(name: string): string {
  const m = new RegExp(`\`\`\`js\\n// ${name.replace(".", "\\.")}\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!m) throw new Error(`README has no block // ${name}`);
  return `// ${name}\n${m[1]}`;
}

// The runtime's own agent (the README's agent.mjs is the user's): the same tool, a scripted model (the SDK's
// Model interface: two refunds in one step, then an answer), every execution appended to EXEC_LOG.
const agentSource = (kind: "esm" | "cjs") => `
${kind === "esm" ? 'import { appendFileSync } from "node:fs";\nimport { Agent, tool, Usage } from "@openai/agents";\nimport { z } from "zod";' : 'const { appendFileSync } = require("node:fs");\nconst { Agent, tool, Usage } = require("@openai/agents");\nconst { z } = require("zod");'}
const call = (callId, order_id, amount_cents) => ({ type: "function_call", callId, name: "issue_refund", arguments: JSON.stringify({ order_id, amount_cents }), status: "completed" });
class ScriptedModel {
  async getResponse(request) {
    const input = Array.isArray(request.input) ? request.input : [];
    const results = input.filter((i) => i.type === "function_call_result");
    const output = results.length
      ? [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Done: " + results.length + " results" }] }]
      : [call("call_big", "A-1", 250000), call("call_small", "A-2", 900)];
    return { usage: new Usage(), output };
  }
  async *getStreamedResponse() { throw new Error("not streamed"); }
}
const agent = new Agent({
  name: "refund-bot",
  instructions: "Refund what is asked.",
  model: new ScriptedModel(),
  tools: [tool({
    name: "issue_refund",
    description: "Refund an order",
    parameters: z.object({ order_id: z.string(), amount_cents: z.number().int() }),
    needsApproval: true,
    execute: async ({ order_id, amount_cents }) => {
      appendFileSync(process.env.EXEC_LOG, JSON.stringify({ order_id, amount_cents, pid: process.pid }) + "\\n");
      return "refunded " + amount_cents + " on " + order_id;
    },
  })],
});
${kind === "esm" ? "export { agent };" : "module.exports = { agent };"}
`;

// A project that loads the adapter through require() and the SDK through import (the double-copy case):
// with an adapter that took RunState from its own require() this failed after claiming the decisions.
const mixedResume = `
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { RunState, run } from "@openai/agents";
import { agent } from "./agent.mjs";
const require = createRequire(import.meta.url);
const { RuntimeClient } = require("@afk-console/runtime-client");
const { applyDecisions } = require("@afk-console/runtime-client/openai-agents");
const afk = new RuntimeClient({ baseUrl: process.env.AFK_URL, token: process.env.AFK_TOKEN });
const saved = JSON.parse(readFileSync("refunds-A-1-A-2.json", "utf8"));
const state = await applyDecisions(afk, saved.runId, await RunState.fromString(agent, saved.state));
const result = await run(agent, state);
await afk.report(saved.runId, [{ type: "state", id: "end", state: "completed" }]);
console.log(result.finalOutput);
`;

// The AI SDK runtime's model and tools: the SDK's own mock model (ai/test), two refunds, then an answer.
const aiTools = `
import { appendFileSync } from "node:fs";
import { tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
const call = (toolCallId, order_id, amount_cents) => ({ type: "tool-call", toolCallId, toolName: "issue_refund", input: JSON.stringify({ order_id, amount_cents }) });
export const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const results = prompt.flatMap((m) => (m.role === "tool" ? m.content.filter((p) => p.type === "tool-result") : []));
    return results.length
      ? { content: [{ type: "text", text: "Done: " + results.length + " results" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }
      : { content: [call("call_big", "A-1", 250000), call("call_small", "A-2", 900)], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] };
  },
});
export const tools = {
  issue_refund: tool({
    description: "Refund an order",
    inputSchema: z.object({ order_id: z.string(), amount_cents: z.number().int() }),
    needsApproval: true,
    execute: async ({ order_id, amount_cents }) => {
      appendFileSync(process.env.EXEC_LOG, JSON.stringify({ order_id, amount_cents }) + "\\n");
      return "refunded " + amount_cents + " on " + order_id;
    },
  }),
};
`;

type Project = { kind: "esm" | "cjs"; dir: string };

describe("@afk-console/runtime-client packed and installed into fresh projects", () => {
  let t: TestDb;
  let ctx: AppContext;
  let server: Awaited<ReturnType<typeof protocolServer>>;
  let adminToken: string;
  let reviewerToken: string;
  const projects: Project[] = [];
  const nodes: { name: string; bin: string }[] = [{ name: "Node 20", bin: process.execPath }];
  const g = globalThis as unknown as { afkContext?: AppContext; afkDb?: AppContext["db"] };
  const graphDbs: TestDb[] = [];

  beforeAll(async () => {
    t = await freshDatabase("sqlite");
    ctx = testContext(t.db);
    g.afkDb = t.db;
    g.afkContext = ctx;
    server = await protocolServer();
    adminToken = (await createToken(ctx, admin, { body: { name: "pack-admin", role: "admin" } })).token;
    reviewerToken = (await createToken(ctx, admin, { body: { name: "pack-reviewer", role: "reviewer" } })).token;
    // Build and pack as a publish would.
    execFileSync("npm", ["run", "build", "--workspace", "packages/client"], { cwd: root, stdio: "pipe" });
    const out = mkdtempSync(path.join(tmpdir(), "afk-client-pack-"));
    execFileSync("npm", ["pack", "--workspace", "packages/client", "--pack-destination", out], { cwd: root, stdio: "pipe" });
    const tarball = path.join(out, readdirSync(out).find((f) => f.endsWith(".tgz"))!);
    const peers = [
      `@openai/agents@${rootPkg.devDependencies["@openai/agents"]}`,
      `@langchain/langgraph@${rootPkg.devDependencies["@langchain/langgraph"]}`,
      `@langchain/core@${rootPkg.devDependencies["@langchain/core"]}`,
      "@langchain/langgraph-checkpoint-postgres@1.0.5",
      `ai@${rootPkg.devDependencies.ai}`,
      `zod@${dependencies.zod}`,
    ];
    // A fresh project of each kind, as `npm init` makes it (CommonJS) and with "type": "module".
    await Promise.all(
      (["esm", "cjs"] as const).map(async (kind) => {
        const dir = path.join(out, kind);
        mkdirSync(dir);
        await exec("npm", ["init", "-y"], { cwd: dir });
        if (kind === "esm") await exec("npm", ["pkg", "set", "type=module"], { cwd: dir });
        await exec("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, ...peers], { cwd: dir, timeout: 300_000 });
        writeFileSync(path.join(dir, "agent.mjs"), agentSource("esm"));
        writeFileSync(path.join(dir, "agent.cjs"), agentSource("cjs"));
        writeFileSync(path.join(dir, "ai-tools.mjs"), aiTools);
        for (const f of [
          "agents-park.mjs",
          "agents-resume.mjs",
          "agents-resume.cjs",
          "graph-park.mjs",
          "graph-resume.mjs",
          "ai-park.mjs",
          "ai-resume.mjs",
        ])
          writeFileSync(path.join(dir, f), block(f));
        // The README's graph with its side effect counted.
        const graph = block("graph.mjs");
        const sideEffect = "const execute = (action) => `$" + "{action.name} done`; // your side effect";
        const counted = graph.replace(
          sideEffect,
          `import { appendFileSync } from "node:fs";\nconst execute = (action) => { appendFileSync(process.env.EXEC_LOG, JSON.stringify(action) + "\\n"); return action.name + " done"; };`,
        );
        expect(counted).not.toBe(graph);
        writeFileSync(path.join(dir, "graph.mjs"), counted);
        writeFileSync(path.join(dir, "mixed-resume.mjs"), mixedResume);
        projects.push({ kind, dir });
      }),
    );
    if (supported()) nodes.push({ name: "Node 24", bin: nodeOf(24).node });
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    g.afkContext = undefined;
    g.afkDb = undefined;
    for (const d of graphDbs) await d.drop();
    await t?.drop();
  });

  const rest = async (token: string, method: string, url: string, body?: unknown) => {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  /** A runtime token made over REST with an admin's token, as the README says. */
  const runtimeToken = async (name: string) =>
    (await rest(adminToken, "POST", "/api/admin/tokens", { name, role: "runtime" })).token as string;
  const node = (bin: string, p: Project, script: string, env: Record<string, string>) =>
    exec(bin, [script], { cwd: p.dir, env: { ...process.env, ...env }, timeout: 120_000 }).then((r) => r.stdout.trim());
  type Approval = { id: string; tool_call_id: string; argsHash: string; args: Record<string, unknown> };
  const approvalsOf = async (runId: string) =>
    ((await rest(reviewerToken, "GET", `/api/runs/${runId}`)) as { approvals: Approval[] }).approvals;
  const decide = (a: Approval, body: Record<string, unknown>) =>
    rest(reviewerToken, "POST", `/api/approvals/${a.id}/decision`, { argsHash: a.argsHash, ...body });

  const combos = () => projects.flatMap((p) => nodes.map((n) => ({ p, n })));

  it("OpenAI Agents JS: the README's park and resume, ESM and CommonJS, Node 20 and 24: the approved call ran once, the rejected never", async () => {
    for (const { p, n } of combos()) {
      const token = await runtimeToken(`agents-${p.kind}-${n.name}`);
      const log = path.join(mkdtempSync(path.join(tmpdir(), "afk-exec-")), "executions.jsonl");
      const env = { AFK_URL: server.url, AFK_TOKEN: token, EXEC_LOG: log };
      expect(await node(n.bin, p, "agents-park.mjs", env)).toMatch(/^parked 2 calls on run /);
      const saved = JSON.parse(readFileSync(path.join(p.dir, "refunds-A-1-A-2.json"), "utf8")) as { runId: string };
      const approvals = await approvalsOf(saved.runId);
      const big = approvals.find((a) => a.tool_call_id === "call_big")!;
      const small = approvals.find((a) => a.tool_call_id === "call_small")!;
      await decide(big, { decision: "reject", reason: "Too large" });
      await decide(small, { decision: "approve" });
      const script = p.kind === "esm" ? "agents-resume.mjs" : "agents-resume.cjs";
      expect(await node(n.bin, p, script, env), `${p.kind} ${n.name}`).toBe("Done: 2 results");
      expect(
        executionsIn(path.dirname(log)).map((e) => [e.order_id, e.amount_cents]),
        `${p.kind} ${n.name}`,
      ).toEqual([["A-2", 900]]);
    }
  }, 600_000);

  it("one project loading the adapter with require() and the SDK with import: one RunState, each decision applied once", async () => {
    const p = projects.find((x) => x.kind === "cjs")!;
    const token = await runtimeToken("agents-mixed");
    const log = path.join(mkdtempSync(path.join(tmpdir(), "afk-exec-")), "executions.jsonl");
    const env = { AFK_URL: server.url, AFK_TOKEN: token, EXEC_LOG: log };
    await node(process.execPath, p, "agents-park.mjs", env);
    const { runId } = JSON.parse(readFileSync(path.join(p.dir, "refunds-A-1-A-2.json"), "utf8")) as { runId: string };
    for (const a of await approvalsOf(runId)) await decide(a, { decision: "approve" });
    expect(await node(process.execPath, p, "mixed-resume.mjs", env)).toBe("Done: 2 results");
    expect(executionsIn(path.dirname(log)).map((e) => e.order_id)).toEqual(["A-1", "A-2"]);
  }, 300_000);

  it("Vercel AI SDK: the README's park and resume, ESM and CommonJS projects, Node 20 and 24: the approved call ran once", async () => {
    for (const { p, n } of combos()) {
      const token = await runtimeToken(`ai-${p.kind}-${n.name}`);
      const log = path.join(mkdtempSync(path.join(tmpdir(), "afk-exec-")), "executions.jsonl");
      const env = { AFK_URL: server.url, AFK_TOKEN: token, EXEC_LOG: log };
      const parked = await node(n.bin, p, "ai-park.mjs", env);
      const runId = /on run (\S+)/.exec(parked)?.[1];
      expect(parked).toMatch(/^parked 2 calls on run /);
      const approvals = await approvalsOf(runId!);
      const byOrder = (id: string) => approvals.find((a) => a.args.order_id === id)!;
      await decide(byOrder("A-1"), { decision: "reject", reason: "Too large" });
      await decide(byOrder("A-2"), { decision: "approve" });
      expect(await node(n.bin, p, "ai-resume.mjs", env), `${p.kind} ${n.name}`).toBe("Done: 2 results");
      expect(
        executionsIn(path.dirname(log)).map((e) => [e.order_id, e.amount_cents]),
        `${p.kind} ${n.name}`,
      ).toEqual([["A-2", 900]]);
    }
  }, 600_000);

  it.runIf(process.env.TEST_POSTGRES_URL)(
    "LangGraph JS with a PostgreSQL checkpointer: the README's park and resume in two processes, edited arguments applied once",
    async () => {
      for (const { p, n } of combos()) {
        const graphDb = await scratchDatabase("postgresql", process.env.TEST_POSTGRES_URL, "afk_graph");
        graphDbs.push(graphDb);
        const token = await runtimeToken(`graph-${p.kind}-${n.name}`);
        const log = path.join(mkdtempSync(path.join(tmpdir(), "afk-exec-")), "executions.jsonl");
        const env = { AFK_URL: server.url, AFK_TOKEN: token, EXEC_LOG: log, GRAPH_DATABASE_URL: graphDb.url };
        const parked = await node(n.bin, p, "graph-park.mjs", env);
        const runId = /on run (\S+)/.exec(parked)?.[1];
        expect(runId, parked).toBeTruthy();
        const [scale] = await approvalsOf(runId!);
        await decide(scale, { decision: "approve", args: { service: "checkout", replicas: 6 } });
        expect(await node(n.bin, p, "graph-resume.mjs", env), `${p.kind} ${n.name}`).toContain("scale_service done");
        expect(executionsIn(path.dirname(log)).map((e) => e.args)).toEqual([{ service: "checkout", replicas: 6 }]);
      }
    },
    600_000,
  );
});
