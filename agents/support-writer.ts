// Drafts a reply that quotes the customer (model output carrying whatever the customer wrote) and sends
// it once a reviewer approved it.
import { z } from "zod";
import { defineAgent } from "../lib/agents/define.ts";
import { callColumns, once, parseJson, turnOf, inputOf } from "../lib/agents/demo-kit.ts";
import { defineTool, toolResults } from "../lib/runner/index.ts";

export default defineAgent(({ db, idempotentTools }) => {
  const send_reply = defineTool({
    name: "send_reply",
    description: "Send a reply to a customer",
    schema: z.object({ to: z.string().max(320), body: z.string().max(4000).meta({ display: "long-text" }) }),
    async execute(a, ctx) {
      const row = await once(
        () =>
          db().outboxMessage.create({
            data: { ...callColumns(ctx, idempotentTools), recipient: a.to, body: a.body },
          }),
        () => db().outboxMessage.findUnique({ where: { idempotencyKey: ctx.idempotencyKey } }),
      );
      return { message_id: row.id, queued: true, preview: a.body.slice(0, 200) };
    },
  });
  return {
    name: "support-writer",
    description: "Drafts and sends a reply to a customer question (every reply is reviewed)",
    model: "demo:support-writer",
    instructions: "Answer customer questions politely.",
    tools: [send_reply],
    policy: [{ id: "customer-replies", tool: "send_reply", action: "require_approval", reason: "Replies to customers are reviewed" }],
    autoResume: true,
    inputSchema: z.object({
      customer: z.string().trim().min(1, "Who is asking?").max(200),
      question: z.string().trim().min(1, "What did they ask?").max(2000).meta({ display: "long-text" }),
    }),
    demo: (messages, context) => {
      const input = inputOf(messages, context);
      const question = String(input.question ?? "");
      if (turnOf(messages) === 1) {
        const body = `Hello ${String(input.customer ?? "")}, you asked: "${question}". We are on it.`;
        return {
          text: `Draft reply, quoting the customer: ${question}`,
          toolCalls: [{ id: "call_reply", name: "send_reply", args: { to: String(input.customer ?? ""), body } }],
        };
      }
      const r = toolResults(messages).find((m) => m.tool_call_id === "call_reply");
      const answered = r?.content.match(/^A reviewer answered instead of running send_reply: ([\s\S]*)$/);
      if (answered) return { text: `No reply sent; the reviewer answered instead: ${answered[1]}` };
      return {
        text: r?.success
          ? `Replied to ${String(input.customer ?? "")}: ${question}`
          : `Reply not sent: ${r ? parseJson(r.content).error : "unknown"}.`,
      };
    },
  };
});
