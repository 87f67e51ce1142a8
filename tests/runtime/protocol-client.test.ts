// The protocol client against the OpenAPI document: its types are the document's (generated, never stale),
// the document is fit for client generators (Spectral's spectral:oas ruleset: zero errors, zero warnings),
// and every answer the client gets from the real route handlers — the long-poll woken by a decision, the
// claim, the second claim's 409, the report, the SSE stream — is what the document says.
import { readFileSync } from "node:fs";
import path from "node:path";
import { Document, Spectral } from "@stoplight/spectral-core";
import { Json } from "@stoplight/spectral-parsers";
import { oas } from "@stoplight/spectral-rulesets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import { openApiDocument } from "@/lib/openapi";
import { ClaimedByAnotherError, type ProtocolError, RuntimeClient } from "@/packages/client/src/index.ts";
import * as graphClaimant from "@/packages/client/src/adapters/langgraph.ts";
import * as agentsClaimant from "@/packages/client/src/adapters/openai-agents.ts";
import { decide } from "@/lib/services/decide";
import { createToken, revokeToken } from "@/lib/services/tokens";
import { responseValidator } from "../../e2e/openapi";
import { protocolTypesSource } from "../../scripts/protocol-client-types";
import { admin, rev } from "../helpers/actors";
import { freshDatabase, type TestDb } from "../helpers/databases";
import { testContext } from "../helpers/context";
import { routeOf } from "../helpers/protocol-server";

const root = path.resolve(import.meta.dirname, "../..");
const doc = openApiDocument("http://localhost:3000");

describe("the OpenAPI document for generators", () => {
  it("the protocol client's types are generated from it and up to date", async () => {
    expect(readFileSync(path.join(root, "packages/client/src/openapi.ts"), "utf8")).toBe(await protocolTypesSource());
  });

  it("passes Spectral's spectral:oas ruleset with no error and no warning", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, "recommended"]] });
    const results = await spectral.run(new Document(JSON.stringify(doc, null, 1), Json));
    expect(results.map((r) => `${r.code} ${r.path.join(".")}: ${r.message}`)).toEqual([]);
  });

  it("every operation has an operationId, tags and a description", () => {
    const ids = new Set<string>();
    for (const [p, ops] of Object.entries(doc.paths))
      for (const [m, op] of Object.entries(ops as Record<string, { operationId?: string; tags?: string[]; description?: string }>)) {
        expect(op.operationId, `${m} ${p}`).toMatch(/^[a-z][A-Za-z]+$/);
        expect(ids.has(op.operationId!), op.operationId).toBe(false);
        ids.add(op.operationId!);
        expect(op.tags?.length, `${m} ${p}`).toBeGreaterThan(0);
        expect(op.description?.length, `${m} ${p}`).toBeGreaterThan(20);
      }
  });
});

describe("the client's options", () => {
  it("a client made without its options names the one missing", () => {
    expect(() => new RuntimeClient({ url: "http://localhost:3000", token: "afk_x" } as never)).toThrow(
      "RuntimeClient: option baseUrl is required (a string)",
    );
    expect(() => new RuntimeClient({ baseUrl: "http://localhost:3000" } as never)).toThrow(
      "RuntimeClient: option token is required (a string)",
    );
    expect(() => new RuntimeClient(undefined as never)).toThrow(/option baseUrl is required/);
  });
});

describe("claimants kept with the runtime's own state", () => {
  it("LangGraph's thread config and Agents JS's serialized state each keep one claimant, made once", () => {
    const config = graphClaimant.withClaimant({ configurable: { thread_id: "t-1" } });
    expect(config.configurable.thread_id).toBe("t-1");
    const claimant = graphClaimant.claimantOf(config);
    expect(claimant).toMatch(/^claimant-[0-9a-f-]{36}$/);
    expect(graphClaimant.claimantOf(graphClaimant.withClaimant(config))).toBe(claimant);
    expect(graphClaimant.claimantOf(graphClaimant.withClaimant({ configurable: { thread_id: "t-1" } }))).not.toBe(claimant);
    const state = agentsClaimant.withClaimant(JSON.stringify({ $schemaVersion: "1.0", currentTurn: 1 }));
    expect(JSON.parse(state)).toMatchObject({ $schemaVersion: "1.0", currentTurn: 1 });
    expect(agentsClaimant.claimantOf(agentsClaimant.withClaimant(state))).toBe(agentsClaimant.claimantOf(state));
    expect(agentsClaimant.claimantOf(JSON.stringify({ currentTurn: 1 }))).toBeNull();
  });
});

describe("the client against the real routes, every answer checked against the document (SQLite)", () => {
  let t: TestDb;
  let ctx: AppContext;
  const g = globalThis as unknown as { afkContext?: AppContext; afkDb?: AppContext["db"] };
  const validator = responseValidator(doc as never);
  const problems: string[] = [];
  const streams: string[] = [];

  // fetch → the route handler of the path's template, with its params; each answer is validated.
  const routed: typeof fetch = async (input, init) => {
    const req = new Request(String(input), init);
    const res = await routeOf(req);
    if (!res) throw new Error(`No route for ${new URL(req.url).pathname}`);
    if (res.headers.get("content-type")?.startsWith("text/event-stream")) return res;
    const body = await res.clone().json();
    const problem = validator.check(req.method, req.url, res.status, body);
    if (problem) problems.push(problem);
    return res;
  };

  beforeAll(async () => {
    t = await freshDatabase("sqlite");
    ctx = testContext(t.db);
    g.afkDb = t.db;
    g.afkContext = ctx;
  });
  afterAll(async () => {
    g.afkContext = undefined;
    g.afkDb = undefined;
    await ctx?.worker.idle();
    await t?.drop();
  });

  it("register, park, long-poll woken by a decision, claim once, report, stream", async () => {
    const { token, id: tokenId } = await createToken(ctx, admin, { body: { name: "client", role: "runtime" } });
    const client = new RuntimeClient({ baseUrl: "http://localhost:3000", token, fetch: routed });
    const run = await client.registerRun({ externalId: "c-1", framework: "openai-agents", agent: "refunds", labels: { env: "test" } });
    expect((await client.registerRun({ externalId: "c-1", framework: "openai-agents", agent: "refunds" })).id).toBe(run.id);
    const parked = await client.parkInterrupts(run.id, {
      batchId: "s1",
      interrupts: [
        { id: "call_1", action: { name: "refund", args: { cents: 500 } }, message: "Refund?" },
        { id: "call_2", action: { name: "refund", args: { cents: 900 } }, decisions: ["approve", "reject"] },
      ],
    });
    expect(parked.interrupts.map((i) => i.status)).toEqual(["pending", "pending"]);

    const waiting = client.waitForDecisions(run.id, ["call_1", "call_2"], { waitS: 10, timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 100));
    await decide(ctx, rev, { approvalId: parked.interrupts[0].approvalId, body: { decision: "approve", args: { cents: 400 } } });
    await decide(ctx, rev, { approvalId: parked.interrupts[1].approvalId, body: { decision: "reject", reason: "No" } });
    const decided = await waiting;
    expect([decided.get("call_1")?.decision, decided.get("call_1")?.args, decided.get("call_2")?.decision]).toEqual([
      "edit",
      { cents: 400 },
      "reject",
    ]);

    const first = await client.claim(run.id, "call_1", { claimant: "one" });
    const again = await client.claim(run.id, "call_1", { claimant: "one" });
    const taken = await client.claim(run.id, "call_1", { claimant: "two" }).catch((e: unknown) => e);
    expect([first.decision, first.claimant, again.claimant]).toEqual(["edit", "one", "one"]);
    expect(taken).toBeInstanceOf(ClaimedByAnotherError);
    expect([(taken as ClaimedByAnotherError).status, (taken as ClaimedByAnotherError).decision.claimant]).toEqual([409, "one"]);
    // A pending interrupt withdrawn leaves the inbox; a decision afterwards is 409 with its state.
    const asked = await client.registerRun({ externalId: "c-3", framework: "mcp", agent: "refunds" });
    const late = await client.parkInterrupts(asked.id, { interrupts: [{ id: "call_3", action: { name: "refund", args: { cents: 1 } } }] });
    const gone = await client.withdraw(asked.id, "call_3", "The request ended");
    expect([gone.withdrawn, gone.interrupt.status]).toEqual([true, "expired"]);
    expect((await client.withdraw(asked.id, "call_3")).withdrawn).toBe(false);
    const refused = await decide(ctx, rev, { approvalId: late.interrupts[0].approvalId, body: { decision: "approve" } }).catch(
      (e: unknown) => e,
    );
    expect((refused as { status: number }).status).toBe(409);
    const notYours = await new RuntimeClient({ baseUrl: "http://localhost:3000", token: "afk_nope", fetch: routed })
      .getRun(run.id)
      .catch((e: unknown) => e);
    expect((notYours as ProtocolError).status).toBe(401);

    // The stream replays the decisions after a cursor, then ends with the run.
    const res = await routed(`http://localhost:3000/api/v1/runtime/runs/${run.id}/decisions/stream`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("call_2")) text += new TextDecoder().decode((await reader.read()).value);
    await client.report(run.id, [
      { type: "message", role: "user", content: "refund me" },
      { type: "state", state: "completed" },
    ]);
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
    streams.push(text);
    expect(text.match(/^event: decision$/gm)).toHaveLength(2);
    expect(text).toMatch(/"state":"completed"/);
    expect(validator.check("GET", `/api/v1/runtime/runs/${run.id}/decisions/stream`, 200, text)).toBeNull();

    // Revoking the token ends an open stream at its next event.
    const other = await client.registerRun({ externalId: "c-2", framework: "openai-agents", agent: "refunds" });
    const open = await routed(`http://localhost:3000/api/v1/runtime/runs/${other.id}/decisions/stream`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const r2 = open.body!.getReader();
    await r2.read();
    await revokeToken(ctx, admin, { tokenId });
    ctx.live.publish({ topic: "run", runId: other.id });
    let ended = false;
    for (let r = await r2.read(); !ended; r = await r2.read()) ended = r.done;
    expect(ended).toBe(true);
    expect(((await client.getRun(other.id).catch((e: unknown) => e)) as ProtocolError).status).toBe(401);

    expect(problems).toEqual([]);
    const covered = validator.coverage().filter((c) => c.op.includes("/api/v1/runtime/"));
    expect(covered.map((c) => `${c.op} ${c.statuses.sort().join(",")}`).sort()).toEqual([
      "GET /api/v1/runtime/runs/{runId} 401",
      "GET /api/v1/runtime/runs/{runId}/decisions 200",
      "GET /api/v1/runtime/runs/{runId}/decisions/stream 200",
      "POST /api/v1/runtime/runs 200",
      "POST /api/v1/runtime/runs/{runId}/events 200",
      "POST /api/v1/runtime/runs/{runId}/interrupts 200",
      "POST /api/v1/runtime/runs/{runId}/interrupts/{interruptId}/claim 200,409",
      "POST /api/v1/runtime/runs/{runId}/interrupts/{interruptId}/withdraw 200",
    ]);
  });
});
