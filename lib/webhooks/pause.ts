// The pause webhook: when a run waits for a human, POST a JSON event to the configured URL, signed with
// HMAC-SHA256 over "<timestamp>.<body>" (header X-AFK-Signature: t=<unix s>,v1=<hex>). Each delivery and
// its attempts are a WebhookDelivery row, shown on the run page. The secret is never sent or displayed.
import { approvalAnchor } from "../runner/ids.ts";
import { createHmac } from "node:crypto";
import type { Db } from "../db/client.ts";
import { getRunRow } from "../db/runs.ts";
import { createWebhookDelivery, recordDeliveryAttempt } from "../db/webhooks.ts";
import { log } from "../log.ts";
import type { RuntimeDecisionDto } from "../dto-protocol.ts";

export type WebhookConfig = { url: string; secret: string; baseUrl: string; attempts?: number; baseDelayMs?: number; timeoutMs?: number };

export function signature(secret: string, timestampS: number, body: string): string {
  return `t=${timestampS},v1=${createHmac("sha256", secret).update(`${timestampS}.${body}`).digest("hex")}`;
}

export async function notifyPaused(db: Db, cfg: WebhookConfig, runId: string, approvalIds: string[]): Promise<void> {
  const run = await getRunRow(db, runId);
  const runUrl = `${cfg.baseUrl.replace(/\/$/, "")}/runs/${encodeURIComponent(runId)}`;
  const payload = {
    type: "run.paused",
    run_id: runId,
    agent: run?.agentName ?? null,
    approval_ids: approvalIds,
    // A deep link per approval: the run page scrolled to that approval's card.
    approvals: approvalIds.map((id) => ({ id, url: `${runUrl}#${approvalAnchor(id)}` })),
    url: runUrl,
    at: new Date().toISOString(),
  };
  const body = JSON.stringify(payload);
  const row = await createWebhookDelivery(db, { runId, event: payload.type, url: cfg.url, payload: body });
  void deliver(db, cfg, row.id, body);
}

/**
 * Decisions on an external run's interrupts, for its runtime (same URL, signature and retries as the pause
 * webhook): `{type:"interrupt.decided", run_id, external_id, decisions, url, at}`. The runtime still claims
 * each decision before applying it, so a delivery retried or received twice applies nothing twice.
 */
export async function notifyDecided(db: Db, cfg: WebhookConfig, runId: string, decisions: RuntimeDecisionDto[]): Promise<void> {
  if (!decisions.length) return;
  const run = await getRunRow(db, runId);
  const payload = {
    type: "interrupt.decided",
    run_id: runId,
    external_id: run?.externalId ?? null,
    decisions,
    url: `${cfg.baseUrl.replace(/\/$/, "")}/runs/${encodeURIComponent(runId)}`,
    at: new Date().toISOString(),
  };
  const body = JSON.stringify(payload);
  const row = await createWebhookDelivery(db, { runId, event: payload.type, url: cfg.url, payload: body });
  void deliver(db, cfg, row.id, body);
}

async function deliver(db: Db, cfg: WebhookConfig, id: string, body: string) {
  const attempts = cfg.attempts ?? 5;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let status: number | null = null;
    let error: string | null = null;
    try {
      const t = Math.floor(Date.now() / 1000);
      const res = await fetch(cfg.url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-afk-signature": signature(cfg.secret, t, body), "x-afk-delivery": id },
        body,
        signal: AbortSignal.timeout(cfg.timeoutMs ?? 5000),
      });
      status = res.status;
      if (!res.ok) error = `HTTP ${res.status}`;
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    const done = error === null;
    const last = attempt === attempts;
    await recordDeliveryAttempt(db, id, {
      attempts: attempt,
      lastStatus: status,
      lastError: error,
      status: done ? "delivered" : last ? "failed" : "pending",
      deliveredAt: done ? new Date() : null,
    }).catch((e) => log.warn("webhook bookkeeping failed", { delivery_id: id, error: String(e) }));
    if (done) return;
    if (!last) await new Promise((r) => setTimeout(r, (cfg.baseDelayMs ?? 1000) * 4 ** (attempt - 1)));
  }
  log.warn("webhook delivery failed", { delivery_id: id, attempts });
}
