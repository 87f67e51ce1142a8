// Several processes resume the same parked run at the same moment, with the real adapters and the real
// frameworks (@openai/agents with its Model interface scripted, @langchain/langgraph with FakeListChatModel
// and SqliteSaver): each process claims as a claimant of its own, the first claim wins and its process
// applies the decisions; every other process gets ClaimedByAnotherError and applies nothing. The tools
// append every execution to a file (no de-duplication), so the file counts what ran: each approved call
// exactly once per try, a rejected one never. TRIES runs per adapter, PARTIES processes lined up per try.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { getRunView } from "@/lib/services/run-view";
import { createToken } from "@/lib/services/tokens";
import { admin, rev } from "../helpers/actors";
import { testContext } from "../helpers/context";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { protocolServer } from "../helpers/protocol-server";
import { executionsIn, type RuntimeScript, runRuntime } from "../helpers/runtime-process";

const TRIES = 20;
const PARTIES = 3;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe.each(providers)("processes resume the same run at once (%s)", (provider) => {
  let t: TestDb;
  let ctx: AppContext;
  let server: Awaited<ReturnType<typeof protocolServer>>;
  let env: { AFK_URL: string; AFK_TOKEN: string; TRIES: string; PARTIES: string };
  const g = globalThis as unknown as { afkContext?: AppContext; afkDb?: AppContext["db"] };
  beforeAll(async () => {
    t = await freshDatabase(provider);
    ctx = testContext(t.db);
    g.afkDb = t.db;
    g.afkContext = ctx;
    server = await protocolServer();
    const { token } = await createToken(ctx, admin, { body: { name: "concurrent", role: "runtime" } });
    env = { AFK_URL: server.url, AFK_TOKEN: token, TRIES: String(TRIES), PARTIES: String(PARTIES) };
  });
  afterAll(async () => {
    await server?.close();
    g.afkContext = undefined;
    g.afkDb = undefined;
    await t?.drop();
  });

  // PARTIES processes of a fixture in race mode; party 0 parks the runs, the test decides them, all resume.
  const race = (script: RuntimeScript, dir: string) =>
    Promise.all(range(PARTIES).map((party) => runRuntime(script, "race", dir, { ...env, PARTY: String(party) }))) as Promise<
      { outcomes: string[] }[]
    >;
  const parked = async (dir: string): Promise<string[]> => {
    for (;;) {
      if (existsSync(path.join(dir, "parked.json"))) return JSON.parse(readFileSync(path.join(dir, "parked.json"), "utf8")) as string[];
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const decideAll = async (dir: string, how: Record<string, "approve" | "reject">) => {
    for (const runId of await parked(dir))
      for (const a of (await getRunView(ctx, rev, { runId })).approvals)
        await decide(ctx, rev, {
          approvalId: a.id,
          body:
            how[a.tool_call_id] === "approve" || how[a.tool_name] === "approve"
              ? { decision: "approve" }
              : { decision: "reject", reason: "No" },
        });
    writeFileSync(path.join(dir, "decided"), "");
  };

  it(`Agents JS and LangGraph: ${TRIES} tries each, every approved call ran exactly once, a rejected one never`, async () => {
    const t0 = Date.now();
    const agentsDir = mkdtempSync(path.join(tmpdir(), "afk-concurrent-agents-"));
    const graphDir = mkdtempSync(path.join(tmpdir(), "afk-concurrent-graph-"));
    const [agentsOut, graphOut] = await Promise.all([
      race("openai-agents.ts", agentsDir),
      race("langgraph.ts", graphDir),
      decideAll(agentsDir, { call_small: "approve", call_big: "reject" }),
      decideAll(graphDir, { scale_service: "approve", page_oncall: "approve", drop_cache: "reject" }),
    ]);
    const ran = executionsIn(agentsDir);
    const ranGraph = executionsIn(graphDir);
    for (const k of range(TRIES)) {
      // One process applied each try's decisions; the others applied nothing.
      expect(agentsOut.map((p) => p.outcomes[k]).sort(), `agents try ${k}`).toEqual(["claimed by another", "claimed by another", "ran"]);
      expect(graphOut.map((p) => p.outcomes[k]).sort(), `langgraph try ${k}`).toEqual(["claimed by another", "claimed by another", "ran"]);
      expect(ran.filter((e) => e.try === k).map((e) => e.order_id)).toEqual(["A-2"]);
      expect(
        ranGraph
          .filter((e) => e.try === k)
          .map((e) => e.name)
          .sort(),
      ).toEqual(["page_oncall", "scale_service"]);
    }
    // Nothing ran outside the tries, nothing rejected ever ran.
    expect([ran.length, ranGraph.length]).toEqual([TRIES, 2 * TRIES]);
    console.log(
      `${provider}: ${PARTIES} processes × ${TRIES} tries per adapter; executions: Agents JS ${ran.length} (approved calls ${TRIES}), LangGraph ${ranGraph.length} (approved calls ${2 * TRIES}); rejected calls run: ${
        ran.filter((e) => e.order_id === "A-1").length + ranGraph.filter((e) => e.name === "drop_cache").length
      }; ${Date.now() - t0} ms`,
    );
  }, 180_000);
});
