// An agent on your own model server: any OpenAI-compatible API (vLLM, Ollama, LM Studio, llama.cpp, a
// gateway). Set OPENAI_COMPATIBLE_BASE_URL (and OPENAI_COMPATIBLE_API_KEY if the server wants one).
import { z } from "zod";
import { defineAgent } from "../lib/agents/define.ts";
import { defineTool } from "../lib/runner/index.ts";

export default defineAgent(({ db }) => {
  const file_ticket = defineTool({
    name: "file_ticket",
    description: "File the ticket in a queue with a priority and tags",
    schema: z.object({
      queue: z.enum(["billing", "shipping", "technical", "other"]),
      priority: z.enum(["low", "normal", "urgent"]),
      summary: z.string().min(1).max(500),
    }),
    async execute(a, ctx) {
      // Upsert on the runner's idempotency key: a call executed again after a crash files one ticket.
      const row = await db().outboxMessage.upsert({
        where: { idempotencyKey: ctx.idempotencyKey },
        create: {
          runId: ctx.runId,
          toolCallId: ctx.toolCallId,
          idempotencyKey: ctx.idempotencyKey,
          recipient: `queue:${a.queue}`,
          body: `[${a.priority}] ${a.summary}`,
        },
        update: {},
      });
      return { ticket_id: row.id, queue: a.queue, priority: a.priority };
    },
  });
  return {
    name: "ticket-triage",
    description: "Reads a support ticket, picks a queue and priority, and files it (a person checks each filing)",
    model: "openai-compatible:llama-3.1-8b-instruct",
    instructions: "You triage support tickets. Call file_ticket once with the right queue and priority, then say what you filed.",
    tools: [file_ticket],
    policy: [{ id: "file-tickets", tool: "file_ticket", action: "require_approval", reason: "A person checks the queue and priority" }],
    inputSchema: z.object({
      subject: z.string().trim().min(1, "What is the ticket about?").max(200),
      body: z.string().trim().min(1, "Paste the ticket").max(5000).meta({ display: "long-text" }),
    }),
    toUserMessage: (input) => `Subject: ${String(input.subject)}\n\n${String(input.body)}`,
  };
});
