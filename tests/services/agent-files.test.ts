// Agents as files: the generated index lists exactly the files in agents/, the loader names the file a
// mistake is in, and an agent whose model provider is not configured is listed but cannot start.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { agentFiles } from "../../agents/index.ts";
import { defineAgent } from "@/lib/agents/define";
import { AgentFileError, loadAgents } from "@/lib/agents/load";
import type { Actor } from "@/lib/auth/actor";
import { HttpError } from "@/lib/auth/errors";
import { agentCatalog } from "@/lib/services/catalog";
import { startRun } from "@/lib/services/start";
import { databaseWithContext } from "../helpers/databases";
import { testContext } from "../helpers/context";

const root = path.resolve(import.meta.dirname, "../..");
const deps = { db: () => null as never, idempotentTools: true, dataDir: "data" };
const submitter: Actor = { id: "u-sub", email: "submitter@example.com", name: "S", role: "submitter" };

describe("agent files", () => {
  it("agents/index.ts lists every agent file and nothing else", () => {
    execFileSync(process.execPath, [path.join(root, "scripts/agents.mjs"), "--check"], { stdio: "pipe" });
    const files = readdirSync(path.join(root, "agents")).filter((f) => f.endsWith(".ts") && f !== "index.ts" && !f.startsWith("_"));
    expect(Object.keys(agentFiles).sort()).toEqual(files.map((f) => f.slice(0, -3)).sort());
  });

  it("builds the demo agents with their subagents resolved by name", () => {
    const loaded = loadAgents(agentFiles, deps);
    expect(Object.keys(loaded.startable).sort()).toEqual(
      [
        "account-setup",
        "deploy-bot",
        "order-status",
        "refund-desk",
        "release-coordinator",
        "release-planner",
        "notebook",
        "support-writer",
        "ticket-triage",
      ].sort(),
    );
    const coordinator = loaded.startable["release-coordinator"];
    expect(coordinator.subagents?.map((s) => s.name)).toEqual(["changelog-writer", "deploy-bot"]);
    // One object per agent: the subagent is the same deploy-bot a run can start.
    expect(coordinator.subagents?.[1]).toBe(loaded.startable["deploy-bot"]);
    expect(loaded.all.map((a) => a.name)).toContain("changelog-writer");
    expect(Object.keys(loaded.scripts)).toContain("changelog-writer");
  });

  const mistake = (files: Record<string, unknown>) => {
    try {
      loadAgents(files, deps);
    } catch (e) {
      expect(e).toBeInstanceOf(AgentFileError);
      return (e as Error).message;
    }
    throw new Error("loaded");
  };
  const agent = (name: string, subagents?: string[]) => defineAgent({ name, model: "demo:x", instructions: "", subagents });

  it("names the file of each mistake", () => {
    expect(mistake({ "a-b": { default: 1 } })).toBe("agents/a-b.ts: the default export must be defineAgent({...})");
    expect(mistake({ refunds: agent("refund-desk") })).toMatch(/^agents\/refunds\.ts: defines "refund-desk"; name the file/);
    expect(mistake({ Bad: agent("Bad") })).toMatch(/must be lowercase-with-dashes/);
    expect(mistake({ a: agent("a", ["missing"]) })).toBe('agents/a.ts: subagent "missing" has no file agents/missing.ts');
    expect(mistake({ a: agent("a", ["b"]), b: agent("b", ["a"]) })).toMatch(/a cycle/);
  });

  describe("an agent whose provider is not configured", () => {
    const h = databaseWithContext("sqlite");

    it("is listed with the reason and refused at start with a 400 naming the agent field", async () => {
      const triage = agentCatalog(h.ctx, submitter).find((a) => a.name === "ticket-triage");
      expect(triage?.unavailable).toMatch(/openai-compatible is not configured.*OPENAI_COMPATIBLE_BASE_URL/);
      expect(agentCatalog(h.ctx, submitter).find((a) => a.name === "refund-desk")?.unavailable).toBeNull();
      const err = await startRun(h.ctx, submitter, { body: { agent: "ticket-triage", input: { subject: "s", body: "b" } } }).catch(
        (e) => e,
      );
      expect(err).toBeInstanceOf(HttpError);
      expect(err.status).toBe(400);
      expect(err.field).toBe("agent");
    });

    it("is available once the provider has an adapter", () => {
      const ex = testContext(h.t.db, {
        models: { "openai-compatible": { provider: "openai-compatible", generate: async () => never() } },
      });
      expect(agentCatalog(ex, submitter).find((a) => a.name === "ticket-triage")?.unavailable).toBeNull();
    });
  });
});

function never(): never {
  throw new Error("not called");
}
