// Secrets stay secret: a planted provider key, webhook secret and API token never appear in any stored
// record, log line or API answer. And the pause webhook: signed, retried with backoff, recorded.
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDb } from "../helpers/databases";
import { testContext } from "../helpers/context";
import { decide } from "@/lib/services/decide";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { createToken, listTokens } from "@/lib/services/tokens";
import { providerAdapters } from "@/lib/models/ai-sdk";
import { parseEnv, resetEnv } from "@/lib/env";
import type { Actor } from "@/lib/auth/actor";

const PROVIDER_KEY = "sk-planted-provider-key-0000111122223333";
const WEBHOOK_SECRET = "whsec-planted-9999888877776666";
const sub: Actor = { id: "u1", email: "sub@example.com", name: "S", role: "submitter" };
const rev: Actor = { id: "u2", email: "rev@example.com", name: "R", role: "reviewer" };
const admin: Actor = { id: "u3", email: "admin@example.com", name: "A", role: "admin" };

let server: Server;
let url: string;
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
let failFirst = 2;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    received.push({ headers: req.headers, body });
    // The first deliveries fail, to exercise the retries.
    res.writeHead(failFirst-- > 0 ? 503 : 204);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("secrets and the pause webhook", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase("sqlite");
  });
  afterAll(() => t?.drop());

  it("delivers a signed pause event with retries and never stores or logs a secret", async () => {
    const lines: string[] = [];
    const orig = { log: console.log, error: console.error };
    console.log = (...a: unknown[]) => void lines.push(a.map(String).join(" "));
    console.error = (...a: unknown[]) => void lines.push(a.map(String).join(" "));
    const prevLevel = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = "debug";
    resetEnv();
    try {
      // Real provider adapters are configured with the planted key (the demo agents do not call them).
      const models = providerAdapters(
        parseEnv({ OPENAI_API_KEY: PROVIDER_KEY, ANTHROPIC_API_KEY: PROVIDER_KEY, AFK_DATA_DIR: "data/test" }),
      );
      const ctx = testContext(t.db, {
        models,
        webhook: { url, secret: WEBHOOK_SECRET, baseUrl: "https://afk.example", baseDelayMs: 20 },
      });
      const { id } = await startRun(ctx, sub, {
        body: {
          agent: "refund-desk",
          input: { order_id: "ORD-3001", amount_cents: 9000, reason: "Broken" },
        },
      });
      await ctx.worker.idle();
      await expect
        .poll(async () => (await t.db.webhookDelivery.findFirst({ where: { runId: id } }))?.status, { timeout: 5000 })
        .toBe("delivered");
      const row = await t.db.webhookDelivery.findFirstOrThrow({ where: { runId: id } });
      expect(row).toMatchObject({ attempts: 3, lastStatus: 204, lastError: null });
      expect(received).toHaveLength(3);
      const last = received[2];
      const payload = JSON.parse(last.body);
      expect(Object.keys(payload).sort()).toEqual(["agent", "approval_ids", "approvals", "at", "run_id", "type", "url"]);
      expect(payload.approvals).toContainEqual({
        id: `${id}:2:call_refund`,
        url: `https://afk.example/runs/${id}#approval-${encodeURIComponent(`${id}:2:call_refund`)}`,
      });
      expect(payload).toMatchObject({ type: "run.paused", run_id: id, agent: "refund-desk", url: `https://afk.example/runs/${id}` });
      expect(payload.approval_ids.sort()).toEqual([`${id}:2:call_notify`, `${id}:2:call_refund`]);
      const sig = String(last.headers["x-afk-signature"]);
      const [, ts, hex] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(sig)!;
      expect(hex).toBe(createHmac("sha256", WEBHOOK_SECRET).update(`${ts}.${last.body}`).digest("hex"));

      await decide(ctx, rev, { approvalId: `${id}:2:call_refund`, body: { decision: "approve" } });
      expect((await decide(ctx, rev, { approvalId: `${id}:2:call_notify`, body: { decision: "approve" } })).resumed).toBe(true);
      await ctx.worker.idle();
      const view = await getRunView(ctx, rev, { runId: id });
      expect(view.run.state).toBe("completed");

      const token = await createToken({ db: t.db }, admin, { body: { name: "ci", role: "reviewer" } });
      const listed = JSON.stringify(await listTokens({ db: t.db }, admin));
      expect(listed).not.toContain(token.token);

      // Every table, every log line, every API answer: none holds a secret.
      const dump = JSON.stringify(
        await Promise.all([
          t.db.stateEntry.findMany(),
          t.db.approval.findMany(),
          t.db.run.findMany(),
          t.db.auditEvent.findMany(),
          t.db.webhookDelivery.findMany(),
          t.db.apiToken.findMany(),
          t.db.outboxMessage.findMany(),
          t.db.refund.findMany(),
        ]),
        (_k, v) => (typeof v === "bigint" ? String(v) : v),
      );
      for (const secret of [PROVIDER_KEY, WEBHOOK_SECRET, token.token]) {
        expect(dump).not.toContain(secret);
        expect(lines.join("\n")).not.toContain(secret);
        expect(JSON.stringify(view)).not.toContain(secret);
        for (const r of received) expect(r.body + JSON.stringify(r.headers)).not.toContain(secret);
      }
      expect(lines.some((l) => l.includes('"run_id"') && l.includes('"phase"'))).toBe(true); // structured logs did run
    } finally {
      console.log = orig.log;
      console.error = orig.error;
      process.env.LOG_LEVEL = prevLevel;
      resetEnv();
    }
  });
});
