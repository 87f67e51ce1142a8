// Sets up a customer account, asking a reviewer for what the request leaves open (askHuman with an
// answer form), then sends the welcome message once.
import { z } from "zod";
import { defineAgent } from "../lib/agents/define.ts";
import { callColumns, once, parseJson, turnOf, inputOf } from "../lib/agents/demo-kit.ts";
import { askHuman, defineTool, toolResults } from "../lib/runner/index.ts";

const planAnswer = z.object({
  plan: z
    .enum(["starter", "team", "enterprise"])
    .meta({ labels: { starter: "Starter", team: "Team", enterprise: "Enterprise (annual contract)" } }),
  seats: z.number().int().min(1).max(500).meta({ unit: "seats" }),
  note: z.string().max(500).optional().meta({ display: "long-text" }),
});

export default defineAgent(({ db, idempotentTools }) => {
  const send_welcome = defineTool({
    name: "send_welcome",
    description: "Send the welcome message of a new account",
    schema: z.object({ company: z.string().max(200), body: z.string().max(2000).meta({ display: "long-text" }) }),
    async execute(a, ctx) {
      const row = await once(
        () => db().outboxMessage.create({ data: { ...callColumns(ctx, idempotentTools), recipient: a.company, body: a.body } }),
        () => db().outboxMessage.findUnique({ where: { idempotencyKey: ctx.idempotencyKey } }),
      );
      return { message_id: row.id };
    },
  });
  return {
    name: "account-setup",
    description: "Sets up a customer account; asks a reviewer which plan and how many seats",
    model: "demo:account-setup",
    instructions: "Set up accounts. Ask a reviewer for anything the request does not say.",
    tools: [askHuman({ answerSchema: planAnswer }), send_welcome],
    autoResume: true,
    inputSchema: z.object({ company: z.string().trim().min(1, "Which company?").max(200) }),
    demo: (messages, context) => {
      const company = String(inputOf(messages, context).company ?? "");
      const turn = turnOf(messages);
      if (turn === 1)
        return {
          text: `Setting up ${company}; the request does not say which plan.`,
          toolCalls: [
            {
              id: "call_ask",
              name: "request_user_input",
              args: { question: `Which plan and how many seats should ${company} start with?`, context: `New account: ${company}` },
            },
          ],
        };
      const asked = parseJson(toolResults(messages).find((m) => m.tool_call_id === "call_ask")?.content ?? "");
      if (!asked.answered) return { text: `Account for ${company} not set up: ${String(asked.reason ?? "no answer")}.` };
      const a = parseJson(JSON.stringify(asked.answer));
      const body = `Welcome ${company}: your ${String(a.plan)} plan has ${String(a.seats)} seats.`;
      if (turn === 2) return { text: body, toolCalls: [{ id: "call_welcome", name: "send_welcome", args: { company, body } }] };
      return { text: `Set up ${company} on ${String(a.plan)} with ${String(a.seats)} seats; welcome sent.` };
    },
  };
});
