// The pause webhook's delivery rows: one per event, updated after each attempt (lib/webhooks/pause.ts
// sends them; the run page lists them through read-models.ts webhookDeliveries).
import type { Db } from "./client.ts";

export const createWebhookDelivery = (db: Db, d: { runId: string; event: string; url: string; payload: string }) =>
  db.webhookDelivery.create({ data: { ...d, status: "pending" }, select: { id: true } });

export const recordDeliveryAttempt = (
  db: Db,
  id: string,
  a: {
    attempts: number;
    lastStatus: number | null;
    lastError: string | null;
    status: "delivered" | "failed" | "pending";
    deliveredAt: Date | null;
  },
) => db.webhookDelivery.update({ where: { id }, data: a, select: { id: true } });
