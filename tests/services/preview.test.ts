// The inbox's preview pane (lib/services/preview.ts): a refund with the order's total that the lookup
// returned beside it, a warning when the refund is more, the conversation up to the call as cut text; the
// reviewer's role is checked, an unknown request is a 404. And the words it reads in (lib/display-call.ts):
// a model-call gate's counters, a question's unanswered fields, results as fields.
import { describe, expect, it } from "vitest";
import { answerProblem, costWords, fieldMessage, gateFacts, gateWords, requestChecks, resultFields, tokensWords } from "@/lib/display-call";
import { approvalPreviewDto } from "@/lib/dto";
import { approvalPreview } from "@/lib/services/preview";
import { startRun } from "@/lib/services/start";
import { rev, sub } from "../helpers/actors";
import { databaseWithContext } from "../helpers/databases";

const money = { type: "integer", title: "Amount", display: "money", currency: "EUR", minorUnits: 2 };
const refundSchema = { type: "object", properties: { order_id: { type: "string" }, amount_cents: money, reason: { type: "string" } } };

describe("words of a request", () => {
  it("a model-call gate's counters in words", () => {
    expect(tokensWords(1)).toBe("1 token");
    expect(tokensWords(87)).toBe("87 tokens");
    expect(tokensWords(1234)).toBe("about 1,200 tokens");
    expect(tokensWords(98765)).toBe("about 99,000 tokens");
    expect(costWords(0.0000935)).toBe("$0.0001");
    expect(costWords(0.00001)).toBe("under $0.0001");
    expect(costWords(0)).toBe("$0.0000");
    const f = gateFacts({ model: "demo:x", step: 2, llm_calls: 1, total_tokens: 1234, total_cost_usd: 0.0000935, message_count: 4 });
    expect(gateWords(f)).toBe("1 call, about 1,200 tokens, $0.0001");
    expect(gateWords({ ...f, calls: 3 })).toBe("3 calls, about 1,200 tokens, $0.0001");
  });

  it("a question's answer checked in words, naming the field by its label", () => {
    const schema = {
      type: "object",
      properties: {
        plan: { type: "string", enum: ["team"] },
        seats: { type: "integer", minimum: 1, unit: "seats" },
        note: { type: "string" },
      },
      required: ["plan", "seats"],
    };
    expect(answerProblem(schema, { plan: "team" })).toEqual({ field: "seats", message: "Seats: enter a number" });
    expect(answerProblem(schema, { seats: 2 })).toEqual({ field: "plan", message: "Plan: choose one" });
    expect(answerProblem(schema, { plan: "team", seats: 0 })).toEqual({ field: "seats", message: "Seats: at least 1" });
    expect(answerProblem(schema, { plan: "team", seats: 1.5 })).toEqual({ field: "seats", message: "Seats: enter a whole number" });
    expect(answerProblem(schema, { plan: "team", seats: 3 })).toBeNull();
    expect(fieldMessage(schema, "seats", "Answer is invalid: seats: Invalid input: expected number, received undefined", undefined)).toBe(
      "Seats: enter a number",
    );
    expect(fieldMessage(schema, "note", "Answer is invalid: note: Too big: expected string to have <=500 characters", "x")).toBe(
      "Note: Too big: expected string to have <=500 characters",
    );
  });

  it("an earlier result as fields, amounts of the request's unit as its money; a request above a total is flagged", () => {
    const result = JSON.stringify({ order_id: "ORD-1", total_cents: 23398, status: "delivered", items: [1, 2], note: "x".repeat(500) });
    const fields = resultFields(result, refundSchema);
    expect(fields?.map((f) => [f.label, f.text])).toEqual([
      ["Order id", "ORD-1"],
      ["Total", "€233.98"],
      ["Status", "delivered"],
      ["Note", `${"x".repeat(199)}…`],
    ]);
    // Not read as money (no money field of that unit): the key says its unit.
    expect(resultFields(result, { properties: { amount_cents: { type: "integer" } } })?.[1].label).toBe("Total cents");
    expect(resultFields("not json", refundSchema)).toBeNull();
    expect(requestChecks({ amount_cents: 150000 }, refundSchema, [{ tool: "lookup_order", content: result }])).toEqual([
      { field: "amount_cents", message: "Amount €1,500.00 is more than the total €233.98 that lookup_order returned" },
    ]);
    expect(requestChecks({ amount_cents: 23398 }, refundSchema, [{ tool: "lookup_order", content: result }])).toEqual([]);
    // No money hint, or another unit: nothing compared.
    expect(
      requestChecks({ amount_cents: 150000 }, { properties: { amount_cents: { type: "integer" } } }, [{ tool: "t", content: result }]),
    ).toEqual([]);
    expect(requestChecks({ amount_cents: 150000 }, refundSchema, [{ tool: "t", content: JSON.stringify({ total: 5 }) }])).toEqual([]);
  });
});

describe("the preview of a request", () => {
  const h = databaseWithContext("sqlite");

  async function refund(amount: number) {
    const { id } = await startRun(h.ctx, sub, {
      body: { agent: "refund-desk", input: { order_id: "ORD-1001", amount_cents: amount, reason: "broken" } },
    });
    await h.ctx.worker.idle();
    return id;
  }

  it("a refund above the order's total: the total beside it, the warning, the conversation up to the call", async () => {
    const runId = await refund(9000);
    const p = await approvalPreview(h.ctx, rev, { approvalId: `${runId}:2:call_refund` });
    expect(approvalPreviewDto.parse(p)).toEqual(p);
    expect(p.approval).toMatchObject({
      tool_name: "issue_refund",
      status: "pending",
      reason: "Refund above the approval threshold",
      canDecide: true,
    });
    expect(p.run).toMatchObject({ id: runId, agentName: "refund-desk", state: "paused" });
    // ORD-1001's total is €79.19 (lib/agents/orders.ts).
    expect(p.related).toHaveLength(1);
    expect(p.related[0].tool).toBe("lookup_order");
    expect(p.related[0].fields).toContainEqual({ key: "total_cents", label: "Total", text: "€79.19" });
    expect(p.checks).toEqual([
      { field: "amount_cents", message: "Amount €90.00 is more than the total €79.19 that lookup_order returned" },
    ]);
    expect(p.excerpt.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(p.excerpt.at(-1)?.text).toBe("Refunding 90.00 and notifying the customer.");
    // The message to the customer is no refund: nothing to compare.
    const notify = await approvalPreview(h.ctx, rev, { approvalId: `${runId}:2:call_notify` });
    expect(notify.checks).toEqual([]);
    expect(notify.related[0].tool).toBe("lookup_order");
  });

  it("a refund within the total is not flagged", async () => {
    const runId = await refund(6000);
    expect((await approvalPreview(h.ctx, rev, { approvalId: `${runId}:2:call_refund` })).checks).toEqual([]);
  });

  it("a submitter may not preview; an unknown request is a 404", async () => {
    const runId = await refund(9000);
    await expect(approvalPreview(h.ctx, sub, { approvalId: `${runId}:2:call_refund` })).rejects.toMatchObject({ status: 403 });
    await expect(approvalPreview(h.ctx, rev, { approvalId: `${runId}:2:call_nothing` })).rejects.toMatchObject({ status: 404 });
    await expect(approvalPreview(h.ctx, rev, { approvalId: "garbage" })).rejects.toMatchObject({ status: 404 });
  });
});
