// Looks up an order, refunds it (above a threshold a reviewer approves first) and tells the customer.
import { z } from "zod";
import { defineAgent } from "../lib/agents/define.ts";
import { callColumns, lookupOrderTool, once, orderIdSchema, parseJson, turnOf, inputOf } from "../lib/agents/demo-kit.ts";
import { lookupOrder } from "../lib/agents/orders.ts";
import { defineTool, toolResults } from "../lib/runner/index.ts";

// Amounts are stored in cents and read in euros.
const money = { title: "Amount", display: "money", currency: "EUR", minorUnits: 2 } as const;

export default defineAgent(({ db, idempotentTools }) => {
  const issue_refund = defineTool({
    name: "issue_refund",
    description: "Refund an amount in cents to the customer of an order",
    schema: z.object({
      order_id: z.string().max(40),
      amount_cents: z.number().int().positive().max(10_000_000).meta(money),
      reason: z.string().max(500),
    }),
    async execute(a, ctx) {
      // The runner's idempotency key, under a unique constraint: a worker killed between this insert and
      // the runner's effect record must not refund twice when the run is taken over.
      const row = await once(
        () =>
          db().refund.create({
            data: {
              ...callColumns(ctx, idempotentTools),
              orderId: a.order_id,
              amountCents: a.amount_cents,
              reason: a.reason,
            },
          }),
        () => db().refund.findUnique({ where: { idempotencyKey: ctx.idempotencyKey } }),
      );
      return { refund_id: row.id, order_id: row.orderId, amount_cents: row.amountCents, status: "refunded" };
    },
  });
  const notify_customer = defineTool({
    name: "notify_customer",
    description: "Email the customer of an order",
    schema: z.object({ order_id: z.string().max(40), message: z.string().max(2000).meta({ display: "long-text" }) }),
    async execute(a, ctx) {
      const order = lookupOrder(a.order_id);
      const row = await once(
        () =>
          db().outboxMessage.create({
            data: {
              ...callColumns(ctx, idempotentTools),
              recipient: order?.email ?? "unknown",
              body: a.message,
            },
          }),
        () => db().outboxMessage.findUnique({ where: { idempotencyKey: ctx.idempotencyKey } }),
      );
      return { message_id: row.id, queued: true };
    },
  });

  return {
    name: "refund-desk",
    description: "Looks up an order, refunds it and tells the customer",
    model: "demo:refund-desk",
    instructions: (ctx) => `You are a refund desk agent. Refunds above ${Number(ctx.refund_approval_threshold_cents) / 100} need approval.`,
    tools: [lookupOrderTool, issue_refund, notify_customer],
    contextDefaults: { refund_approval_threshold_cents: 5000, finance_approval_threshold_cents: 100_000 },
    policy: [
      // Routing: a large refund is decided by finance only (the API answers 403 to other reviewers).
      {
        id: "refund-large",
        tool: "issue_refund",
        when: (args, ctx) => Number(args.amount_cents) > Number(ctx.finance_approval_threshold_cents),
        action: "require_approval",
        reason: "Large refund: finance decides",
        priority: 20,
        groups: ["finance"],
        // Above 1,000.00 a tap on a phone asks "Approve … €1,500.00?" before it decides.
        confirmAbove: { field: "amount_cents", value: 100_000 },
      },
      {
        id: "refund-above-threshold",
        tool: "issue_refund",
        when: (args, ctx) => Number(args.amount_cents) > Number(ctx.refund_approval_threshold_cents),
        action: "require_approval",
        reason: "Refund above the approval threshold",
        priority: 10,
      },
      { id: "customer-messages", tool: "notify_customer", action: "require_approval", reason: "Messages to customers are reviewed" },
    ],
    inputSchema: z.object({
      order_id: orderIdSchema,
      amount_cents: z
        .number()
        .int()
        .positive("Amount must be positive")
        .max(10_000_000, "At most 100,000.00")
        .meta({ ...money, description: "What goes back to the customer, at most 100,000.00" }),
      reason: z.string().trim().min(3, "Give a reason").max(500).meta({ display: "long-text", description: "The customer sees it" }),
    }),
    demo: (messages, context) => {
      const turn = turnOf(messages);
      const input = inputOf(messages, context);
      const orderId = String(input.order_id ?? "ORD-0000");
      if (turn === 1)
        return { text: `Looking up ${orderId}.`, toolCalls: [{ id: "call_lookup", name: "lookup_order", args: { order_id: orderId } }] };
      if (turn === 2) {
        const amount = Number(input.amount_cents ?? 0);
        return {
          text: `Refunding ${(amount / 100).toFixed(2)} and notifying the customer.`,
          toolCalls: [
            {
              id: "call_refund",
              name: "issue_refund",
              args: { order_id: orderId, amount_cents: amount, reason: String(input.reason ?? "") },
            },
            {
              id: "call_notify",
              name: "notify_customer",
              args: { order_id: orderId, message: `Your refund for ${orderId} is on its way.` },
            },
          ],
        };
      }
      const refund = toolResults(messages).find((r) => r.tool_call_id === "call_refund");
      const done = refund?.success ? parseJson(refund.content) : null;
      const text = done
        ? `Refunded ${((Number(done.amount_cents) || 0) / 100).toFixed(2)} for ${orderId}.`
        : `No refund was issued for ${orderId}: ${refund ? parseJson(refund.content).error : "unknown"}.`;
      return {
        text,
        structured: {
          order_id: orderId,
          refunded: !!done,
          amount_cents: done ? Number(done.amount_cents) : 0,
          threshold_cents: Number(context.refund_approval_threshold_cents),
        },
      };
    },
  };
});
