// The metrics as Prometheus scrapes them: over real HTTP (a process's ops port, and the app's /api/metrics
// route), parsed by a Prometheus text-format parser, and every value checked against what the test did:
// four runs pause on a charge, their requests wait (the oldest pending age grows), three are decided (two
// approved, one rejected) and resumed to completion. Counters are per process and this file runs both
// databases in one process, so counters are compared before and after; gauges read the database.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { rev, sub } from "../helpers/actors";
import { databaseWithContext, providers } from "../helpers/databases";
import { histogramOf, type Scrape, scrape, typeOf, valueIn } from "../helpers/prometheus";
import { scriptedModel } from "../helpers/scripted-model";
import { startOpsServer } from "@/lib/ops/server";
import { type Agent, approvalId, defineTool } from "@/lib/runner";
import { decide } from "@/lib/services/decide";
import { startRun } from "@/lib/services/start";

const TOKEN = "metrics-token-0123456789";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function world() {
  const executions = { note: 0, charge: 0 };
  const note = defineTool({
    name: "note",
    description: "write a note",
    schema: z.object({}),
    async execute() {
      executions.note++;
      await sleep(5);
      return { ok: true };
    },
  });
  const charge = defineTool({
    name: "charge",
    description: "charge a card",
    schema: z.object({ cents: z.number() }),
    async execute(a) {
      executions.charge++;
      return { charged: a.cents };
    },
  });
  const agent: Agent = {
    name: "metered",
    model: "meter:m1",
    instructions: "",
    tools: [note, charge],
    policy: [{ id: "charges", tool: "charge", action: "require_approval", reason: "A person checks charges" }],
    inputSchema: z.object({ cents: z.number() }),
    toUserMessage: (input) => JSON.stringify(input),
  };
  const model = scriptedModel("meter", (turn, req) => {
    if (turn > 1) return { text: "done" };
    const cents = (JSON.parse(String(req.messages.find((m) => m.role === "user")?.content)) as { cents: number }).cents;
    return {
      text: "noting and charging",
      calls: [
        { id: "n1", name: "note", args: {} },
        { id: "c1", name: "charge", args: { cents } },
      ],
    };
  });
  return { executions, agent, model };
}

describe.each(providers)("metrics (%s)", (provider) => {
  const w = world();
  const h = databaseWithContext(provider, { agents: { metered: w.agent }, models: { meter: w.model } });
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = await startOpsServer(h.ctx, { port: 0, host: "127.0.0.1", token: TOKEN, provider });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server?.close(() => r())));

  const labels = { agent: "metered", tool: "charge" };
  const chat = { gen_ai_operation_name: "chat", gen_ai_provider_name: "meter", gen_ai_request_model: "m1" };

  it("counts what happened and reads what waits, as the test did it", async () => {
    const before = await scrape(`${url}/metrics`, TOKEN);
    const runs: string[] = [];
    for (const cents of [100, 200, 300, 400]) runs.push((await startRun(h.ctx, sub, { body: { agent: "metered", input: { cents } } })).id);
    await h.ctx.worker.idle();
    expect(w.executions).toEqual({ note: 4, charge: 0 });

    const waiting = await scrape(`${url}/metrics`, TOKEN);
    expect(valueIn(waiting, "afk_approvals_pending")).toBe(4);
    expect(valueIn(waiting, "afk_runs", { state: "paused" })).toBe(4);
    expect(
      valueIn(waiting, "afk_approvals_requested_total", { ...labels, kind: "tool" }) -
        valueIn(before, "afk_approvals_requested_total", { ...labels, kind: "tool" }),
    ).toBe(4);
    await sleep(1200);
    const later = await scrape(`${url}/metrics`, TOKEN);
    // The oldest request's age grows with the clock while nobody decides it.
    const age = (s: Scrape) => valueIn(s, "afk_approval_oldest_pending_age_seconds");
    expect(age(later) - age(waiting)).toBeGreaterThanOrEqual(1.1);
    expect(age(later)).toBeGreaterThanOrEqual(1.2);

    // Three decisions: two approvals and a rejection; each completes its run's step, which resumes and completes.
    const decisions = ["approve", "approve", "reject"] as const;
    for (const [i, decision] of decisions.entries()) {
      const d = await decide(h.ctx, rev, {
        approvalId: approvalId(runs[i], 1, "c1"),
        body: { decision, reason: decision === "reject" ? "no" : undefined },
      });
      expect(d.resumed).toBe(true);
    }
    await h.ctx.worker.idle();
    expect(w.executions).toEqual({ note: 4, charge: 2 });

    const after = await scrape(`${url}/metrics`, TOKEN);
    const delta = (name: string, l: Record<string, string> = {}) => valueIn(after, name, l) - valueIn(before, name, l);
    const hdelta = (name: string, l: Record<string, string> = {}, le?: string) => {
      const a = histogramOf(after, name, l, le);
      const b = histogramOf(before, name, l, le);
      return { count: a.count - b.count, sum: a.sum - b.sum, atOrBelow: a.atOrBelow - b.atOrBelow };
    };
    expect(typeOf(after, "afk_approvals_decided_total")).toBe("counter");
    expect(delta("afk_approvals_decided_total", labels)).toBe(3);
    expect(delta("afk_approvals_decided_total", { ...labels, decision: "approved" })).toBe(2);
    expect(delta("afk_approvals_decided_total", { ...labels, decision: "rejected" })).toBe(1);
    // Each of the three waited at least 1.2 s: none in the 1 s bucket, their sum at least 3.6 s.
    const wait = hdelta("afk_approval_wait_seconds", labels, "1");
    expect(wait.count).toBe(3);
    expect(wait.atOrBelow).toBe(0);
    expect(wait.sum).toBeGreaterThanOrEqual(3.6);
    expect(valueIn(after, "afk_approvals_pending")).toBe(1);
    expect(age(after)).toBeGreaterThanOrEqual(1.2); // the fourth still waits
    expect(valueIn(after, "afk_runs", { state: "completed" })).toBe(3);
    expect(valueIn(after, "afk_runs", { state: "paused" })).toBe(1);
    expect(delta("afk_runs_finished_total", { agent: "metered", outcome: "completed" })).toBe(3);
    expect(hdelta("afk_run_duration_seconds", { agent: "metered", outcome: "completed" }).count).toBe(3);
    // Model calls: four first turns, three second turns; one input and one output token each.
    expect(hdelta("gen_ai_client_operation_duration_seconds", { ...chat, error_type: "" }).count).toBe(7);
    expect(hdelta("gen_ai_client_token_usage", { ...chat, gen_ai_token_type: "input" })).toMatchObject({ count: 7, sum: 7 });
    expect(hdelta("gen_ai_client_token_usage", { ...chat, gen_ai_token_type: "output" })).toMatchObject({ count: 7, sum: 7 });
    // Tools that ran (a replayed note is not a run of the tool): four notes, two charges.
    expect(hdelta("afk_tool_duration_seconds", { tool: "note", outcome: "ok" }).count).toBe(4);
    expect(hdelta("afk_tool_duration_seconds", { tool: "note", outcome: "ok" }).sum).toBeGreaterThanOrEqual(0.02);
    expect(hdelta("afk_tool_duration_seconds", { tool: "charge", outcome: "ok" }).count).toBe(2);
    // Every model call's response is written durably (post_llm) in a batch of its own: seven at least.
    expect(hdelta("afk_checkpoint_write_seconds").count).toBeGreaterThanOrEqual(7);
    expect(valueIn(after, "afk_build_info", { database: provider })).toBe(1);
    expect(valueIn(after, "afk_metrics_database_up")).toBe(1);
    expect(valueIn(after, "afk_active_runs")).toBe(0);
    // No label takes an id: no run id appears anywhere in the scrape.
    for (const id of runs) expect(after.text).not.toContain(id);
  });

  it("an ops port with a token refuses a scrape without it; its probes need none", async () => {
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
    expect((await fetch(`${url}/livez`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
  });
});

describe("GET /api/metrics (the app's route)", () => {
  const h = databaseWithContext("sqlite");
  const get = async (token?: string) => {
    const { GET } = await import("@/app/api/metrics/route");
    return GET(new Request("http://localhost/api/metrics", { headers: token ? { authorization: `Bearer ${token}` } : {} }));
  };
  const withEnv = async (token: string | undefined) => {
    process.env.DATABASE_URL = h.t.url;
    if (token) process.env.AFK_METRICS_TOKEN = token;
    else delete process.env.AFK_METRICS_TOKEN;
    (await import("@/lib/env")).resetEnv();
  };

  it("is off without AFK_METRICS_TOKEN: never public by default", async () => {
    await withEnv(undefined);
    const res = await get();
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("afk_");
    expect((await get(TOKEN)).status).toBe(404);
  });

  it("answers only the token, with text Prometheus parses", async () => {
    await withEnv(TOKEN);
    expect((await get()).status).toBe(401);
    expect((await get("not-the-token-0123456789")).status).toBe(401);
    const res = await get(TOKEN);
    expect(res.status).toBe(200);
    const { getMetricsFromStream } = await import("prom2javascript");
    const { Readable } = await import("node:stream");
    const m = await getMetricsFromStream(Readable.from([await res.text()]));
    expect(m.afk_metrics_database_up?.type).toBe("gauge");
    expect(m.afk_approvals_pending?.data).toEqual([{ labels: {}, value: 0 }]);
    expect(m.afk_build_info?.data).toEqual([
      expect.objectContaining({ labels: expect.objectContaining({ database: "sqlite" }), value: 1 }),
    ]);
  });
});
