// Says where an order is; no approvals (the benchmarks use it for throughput).
import { z } from "zod";
import { defineAgent } from "../lib/agents/define.ts";
import { lookupOrderTool, orderIdSchema, parseJson, turnOf, inputOf } from "../lib/agents/demo-kit.ts";
import { toolResults } from "../lib/runner/index.ts";

export default defineAgent({
  name: "order-status",
  description: "Says where an order is (no approvals)",
  model: "demo:order-status",
  instructions: "Tell customers where their order is.",
  tools: [lookupOrderTool],
  inputSchema: z.object({ order_id: orderIdSchema }),
  demo: (messages, context) => {
    const input = inputOf(messages, context);
    if (turnOf(messages) === 1)
      return {
        text: "Looking it up.",
        toolCalls: [{ id: "call_lookup", name: "lookup_order", args: { order_id: String(input.order_id ?? "") } }],
      };
    const r = toolResults(messages).find((m) => m.tool_call_id === "call_lookup");
    const order = r ? parseJson(r.content) : {};
    return { text: order.status ? `Order ${String(input.order_id)} is ${String(order.status)}.` : `No order ${String(input.order_id)}.` };
  },
});
