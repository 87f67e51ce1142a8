// The demo agents: real tools with real side effects (rows in refunds, outbox and deployments tables),
// scripted by the deterministic demo model so a fresh install shows real paused runs.
import { z } from "zod";
import type { Db } from "../db/client.ts";
import { type Agent, type DemoScript, type Message, defineTool, delegateToolName, toolResults } from "../runner/index.ts";
import { lookupOrder } from "./orders.ts";
import { log } from "../log.ts";

const turnOf = (messages: Message[]) => messages.filter((m) => m.role === "assistant").length + 1;
const lastUser = (messages: Message[]) => [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
const parseJson = (s: string): Record<string, unknown> => {
  try {
    const v = JSON.parse(s);
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
};

// Does a side effect once per idempotency key: the insert wins, or the row an earlier execution of the
// same call wrote (unique constraint, Prisma error P2002) is returned instead.
async function once<T>(create: () => Promise<T>, existing: () => Promise<T | null>): Promise<T> {
  try {
    return await create();
  } catch (e) {
    if ((e as { code?: string }).code !== "P2002") throw e;
    const row = await existing();
    if (!row) throw e;
    // A call executed again (a worker died or stalled between the tool and its effect record): the key
    // made it harmless. Logged so that the chaos test can count how often that window is hit.
    log.warn("tool re-executed; its idempotency key found the earlier row", { row_id: (row as { id?: string }).id });
    return row;
  }
}

export const refundInput = z.object({
  order_id: z.string().regex(/^ORD-\d{3,8}$/, "Order ids look like ORD-12345"),
  amount_cents: z.number().int().positive("Amount must be positive").max(10_000_000),
  reason: z.string().trim().min(3, "Give a reason").max(500),
});

export const deployInput = z.object({
  service: z.string().regex(/^[a-z][a-z0-9-]{1,40}$/, "Lowercase service name"),
  version: z.string().regex(/^v?\d+\.\d+\.\d+$/, "Semantic version such as 1.4.2"),
  environment: z.enum(["staging", "production"]),
});

export const releaseInput = z.object({ service: deployInput.shape.service, version: deployInput.shape.version });

export const supportInput = z.object({
  customer: z.string().trim().min(1, "Who is asking?").max(200),
  question: z.string().trim().min(1, "What did they ask?").max(2000),
});

export function createDemoAgents(db: () => Db, opts: { idempotent?: boolean } = {}) {
  // Without it (tests only), every execution writes its own row: the rows count executions.
  const keyOf = (ctx: { idempotencyKey: string }) => (opts.idempotent === false ? null : ctx.idempotencyKey);
  const lookup_order = defineTool({
    name: "lookup_order",
    description: "Look up an order by id",
    schema: z.object({ order_id: z.string().max(40) }),
    async execute({ order_id }) {
      return lookupOrder(order_id) ?? { error: `No order ${order_id}` };
    },
  });
  const issue_refund = defineTool({
    name: "issue_refund",
    description: "Refund an amount in cents to the customer of an order",
    schema: z.object({
      order_id: z.string().max(40),
      amount_cents: z.number().int().positive().max(10_000_000),
      reason: z.string().max(500),
    }),
    async execute(a, ctx) {
      // The runner's idempotency key, under a unique constraint: a worker killed between this insert and
      // the runner's effect record must not refund twice when the run is taken over.
      const row = await once(
        () =>
          db().refund.create({
            data: {
              runId: ctx.runId,
              toolCallId: ctx.toolCallId,
              idempotencyKey: keyOf(ctx),
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
    schema: z.object({ order_id: z.string().max(40), message: z.string().max(2000) }),
    async execute(a, ctx) {
      const order = lookupOrder(a.order_id);
      const row = await once(
        () =>
          db().outboxMessage.create({
            data: {
              runId: ctx.runId,
              toolCallId: ctx.toolCallId,
              idempotencyKey: keyOf(ctx),
              recipient: order?.email ?? "unknown",
              body: a.message,
            },
          }),
        () => db().outboxMessage.findUnique({ where: { idempotencyKey: ctx.idempotencyKey } }),
      );
      return { message_id: row.id, queued: true };
    },
  });

  const refundScript: DemoScript = (messages, context) => {
    const turn = turnOf(messages);
    const input = parseJson(lastUser(messages));
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
          { id: "call_notify", name: "notify_customer", args: { order_id: orderId, message: `Your refund for ${orderId} is on its way.` } },
        ],
      };
    }
    const results = toolResults(messages);
    const refund = results.find((r) => r.tool_call_id === "call_refund");
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
  };

  const refundDesk: Agent = {
    name: "refund-desk",
    description: "Looks up an order, refunds it and tells the customer",
    model: "demo:refund-desk",
    instructions: (ctx) => `You are a refund desk agent. Refunds above ${Number(ctx.refund_approval_threshold_cents) / 100} need approval.`,
    tools: [lookup_order, issue_refund, notify_customer],
    contextDefaults: { refund_approval_threshold_cents: 5000 },
    policy: [
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
    inputSchema: refundInput,
    toUserMessage: (input) => JSON.stringify(input),
  };

  const get_status = defineTool({
    name: "get_status",
    description: "Current version and health of a service",
    schema: z.object({ service: z.string().max(60), environment: z.string().max(40) }),
    async execute({ service, environment }) {
      const last = await db().deployment.findFirst({ where: { service, environment }, orderBy: { createdAt: "desc" } });
      return { service, environment, version: last?.version ?? "0.0.0", healthy: true };
    },
  });
  const deploy = defineTool({
    name: "deploy",
    description: "Deploy a version of a service to an environment",
    schema: deployInput,
    async execute(a, ctx) {
      const row = await once(
        () =>
          db().deployment.create({
            data: {
              runId: ctx.runId,
              toolCallId: ctx.toolCallId,
              idempotencyKey: keyOf(ctx),
              service: a.service,
              version: a.version,
              environment: a.environment,
            },
          }),
        () => db().deployment.findUnique({ where: { idempotencyKey: ctx.idempotencyKey } }),
      );
      return { deployment_id: row.id, ...a, status: "deployed" };
    },
  });
  const deployScript: DemoScript = (messages) => {
    const turn = turnOf(messages);
    const input = { environment: "production", ...parseJson(lastUser(messages)) } as Record<string, string>;
    if (turn === 1)
      return {
        text: `Checking ${input.service}.`,
        toolCalls: [{ id: "call_status", name: "get_status", args: { service: input.service, environment: input.environment } }],
      };
    if (turn === 2)
      return {
        text: `Deploying ${input.service} ${input.version} to ${input.environment}.`,
        toolCalls: [
          { id: "call_deploy", name: "deploy", args: { service: input.service, version: input.version, environment: input.environment } },
        ],
      };
    const r = toolResults(messages).find((m) => m.tool_call_id === "call_deploy");
    return {
      text: r?.success
        ? `Deployed ${input.service} ${input.version} to ${input.environment}.`
        : `Deployment not done: ${r ? parseJson(r.content).error : "unknown"}.`,
    };
  };
  const deployBot: Agent = {
    name: "deploy-bot",
    description: "Checks a service and deploys a version",
    model: "demo:deploy-bot",
    instructions: "You deploy services. Every deployment is approved by a human.",
    tools: [get_status, deploy],
    policy: [
      {
        id: "production-deploys",
        tool: "deploy",
        when: (args) => args.environment === "production",
        action: "require_approval",
        reason: "Production deployments need two reviewers",
        quorum: 2,
        priority: 10,
      },
      { id: "all-deploys", tool: "deploy", action: "require_approval", reason: "Deployments always need approval" },
    ],
    autoResume: true,
    inputSchema: deployInput,
    toUserMessage: (input) => JSON.stringify(input),
  };

  const changelogScript: DemoScript = (messages) => ({
    text: `Release notes: ${lastUser(messages).slice(0, 200)} — bug fixes and improvements.`,
  });
  const changelogWriter: Agent = {
    name: "changelog-writer",
    description: "Writes release notes",
    model: "demo:changelog-writer",
    instructions: "Write short release notes.",
    tools: [],
  };

  const releaseScript: DemoScript = (messages) => {
    const turn = turnOf(messages);
    const input = parseJson(lastUser(messages));
    if (turn === 1) {
      return {
        text: "Delegating notes and deployment.",
        toolCalls: [
          { id: "call_notes", name: delegateToolName(changelogWriter), args: { task: `Notes for ${input.service} ${input.version}` } },
          {
            id: "call_ship",
            name: delegateToolName(deployBot),
            args: { task: JSON.stringify({ service: input.service, version: input.version, environment: "production" }) },
          },
        ],
      };
    }
    const r = toolResults(messages);
    return {
      text: `Release of ${input.service} ${input.version}: ${r.map((m) => `${m.name}=${m.success ? "ok" : "failed"}`).join(", ")}.`,
    };
  };
  const releaseCoordinator: Agent = {
    name: "release-coordinator",
    description: "Delegates release notes and a production deployment to two subagents",
    model: "demo:release-coordinator",
    instructions: "Coordinate a release with your subagents.",
    tools: [],
    subagents: [changelogWriter, deployBot],
    inputSchema: releaseInput,
    toUserMessage: (input) => JSON.stringify(input),
  };

  // No approvals at all: looks an order up and says where it is (benchmarks use it for throughput).
  const statusScript: DemoScript = (messages) => {
    const input = parseJson(lastUser(messages));
    if (turnOf(messages) === 1)
      return {
        text: "Looking it up.",
        toolCalls: [{ id: "call_lookup", name: "lookup_order", args: { order_id: String(input.order_id ?? "") } }],
      };
    const r = toolResults(messages).find((m) => m.tool_call_id === "call_lookup");
    const order = r ? parseJson(r.content) : {};
    return { text: order.status ? `Order ${String(input.order_id)} is ${String(order.status)}.` : `No order ${String(input.order_id)}.` };
  };
  const orderStatus: Agent = {
    name: "order-status",
    description: "Says where an order is (no approvals)",
    model: "demo:order-status",
    instructions: "Tell customers where their order is.",
    tools: [lookup_order],
    inputSchema: z.object({ order_id: refundInput.shape.order_id }),
    toUserMessage: (input) => JSON.stringify(input),
  };

  // Drafts a reply that quotes the customer: model output carrying whatever the customer wrote.
  const send_reply = defineTool({
    name: "send_reply",
    description: "Send a reply to a customer",
    schema: z.object({ to: z.string().max(320), body: z.string().max(4000) }),
    async execute(a, ctx) {
      const row = await once(
        () =>
          db().outboxMessage.create({
            data: { runId: ctx.runId, toolCallId: ctx.toolCallId, idempotencyKey: keyOf(ctx), recipient: a.to, body: a.body },
          }),
        () => db().outboxMessage.findUnique({ where: { idempotencyKey: ctx.idempotencyKey } }),
      );
      return { message_id: row.id, queued: true, preview: a.body.slice(0, 200) };
    },
  });
  const supportScript: DemoScript = (messages) => {
    const input = parseJson(lastUser(messages));
    const question = String(input.question ?? "");
    if (turnOf(messages) === 1) {
      const body = `Hello ${String(input.customer ?? "")}, you asked: "${question}". We are on it.`;
      return {
        text: `Draft reply, quoting the customer: ${question}`,
        toolCalls: [{ id: "call_reply", name: "send_reply", args: { to: String(input.customer ?? ""), body } }],
      };
    }
    const r = toolResults(messages).find((m) => m.tool_call_id === "call_reply");
    return {
      text: r?.success
        ? `Replied to ${String(input.customer ?? "")}: ${question}`
        : `Reply not sent: ${r ? parseJson(r.content).error : "unknown"}.`,
    };
  };
  const supportWriter: Agent = {
    name: "support-writer",
    description: "Drafts and sends a reply to a customer question (every reply is reviewed)",
    model: "demo:support-writer",
    instructions: "Answer customer questions politely.",
    tools: [send_reply],
    policy: [{ id: "customer-replies", tool: "send_reply", action: "require_approval", reason: "Replies to customers are reviewed" }],
    autoResume: true,
    inputSchema: supportInput,
    toUserMessage: (input) => JSON.stringify(input),
  };

  const agents = {
    "refund-desk": refundDesk,
    "deploy-bot": deployBot,
    "release-coordinator": releaseCoordinator,
    "support-writer": supportWriter,
    "order-status": orderStatus,
  };
  const scripts: Record<string, DemoScript> = {
    "refund-desk": refundScript,
    "deploy-bot": deployScript,
    "changelog-writer": changelogScript,
    "release-coordinator": releaseScript,
    "support-writer": supportScript,
    "order-status": statusScript,
  };
  return { agents, scripts };
}
