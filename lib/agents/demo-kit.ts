// Shared by the demo agents in agents/: script helpers for the deterministic demo model, the order
// catalogue's lookup tool, and `once`, which makes a tool's side effect happen once per idempotency key.
import { z } from "zod";
import { type Message, type ToolContext, defineTool } from "../runner/index.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { log } from "../log.ts";
import { lookupOrder } from "./orders.ts";

/** The model's turn number in a conversation (1 for the first answer). */
export const turnOf = (messages: Message[]) => messages.filter((m) => m.role === "assistant").length + 1;
/** The newest user message's text. */
export const lastUser = (messages: Message[]) => [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
/** A JSON object from text, or {} (model and tool text is untrusted). */
export const parseJson = (s: string): Record<string, unknown> => {
  try {
    const v = JSON.parse(s);
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
};

/**
 * A run's input: the newest user message when it is a JSON object (a subagent's task, or a message an agent
 * builds with JSON.stringify), else the form's input the run started with (its message lists the fields
 * for people to read).
 */
export const inputOf = (messages: Message[], context: Record<string, unknown>): Record<string, unknown> => {
  const parsed = parseJson(lastUser(messages));
  if (Object.keys(parsed).length) return parsed;
  const input = context.input;
  return input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
};

/**
 * Does a side effect once per idempotency key: the insert wins, or the row an earlier execution of the
 * same call wrote (unique constraint, Prisma error P2002) is returned instead.
 */
export async function once<T>(create: () => Promise<T>, existing: () => Promise<T | null>): Promise<T> {
  try {
    return await create();
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    const row = await existing();
    if (!row) throw e;
    // A call executed again (a worker died or stalled between the tool and its effect record): the key
    // made it harmless. Logged so that the chaos test can count how often that window is hit.
    log.warn("tool re-executed; its idempotency key found the earlier row", { row_id: (row as { id?: string }).id });
    return row;
  }
}

/**
 * The columns a demo tool's row records about the call: run, tool call and the idempotency key (null when
 * the tools are told to ignore it, so that tests count executions).
 */
export const callColumns = (ctx: ToolContext, idempotentTools: boolean) => ({
  runId: ctx.runId,
  toolCallId: ctx.toolCallId,
  idempotencyKey: idempotentTools ? ctx.idempotencyKey : null,
});

export const lookupOrderTool = defineTool({
  name: "lookup_order",
  description: "Look up an order by id",
  schema: z.object({ order_id: z.string().max(40) }),
  async execute({ order_id }) {
    return lookupOrder(order_id) ?? { error: `No order ${order_id}` };
  },
});

export const orderIdSchema = z
  .string()
  .regex(/^ORD-\d{3,8}$/, "Order ids look like ORD-12345")
  .meta({ description: "Order ids look like ORD-12345" });
