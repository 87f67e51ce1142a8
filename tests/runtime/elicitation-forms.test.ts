// MCP elicitation's forms as the specification defines them (titled single- and multi-selects, enumNames,
// defaults only where the schema gives one, untouched optional fields left out): parked through the
// runtime protocol, shown by the console's schema form, answered, and checked by the console against the
// server's schema. The form's markup is rendered by React itself (react-dom/server).
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { cleanValues, initialValues, type JsonSchema, SchemaFields } from "@/components/schema-form";
import type { AppContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { getRunView } from "@/lib/services/run-view";
import { type RuntimeCaller, runtimeFromToken } from "@/lib/auth/tokens";
import { parkInterrupts, registerRun } from "@/lib/services/runtime-protocol";
import { createToken } from "@/lib/services/tokens";
import { admin, rev } from "../helpers/actors";
import { databaseWithContext } from "../helpers/databases";

// The shapes of MCP's elicitation schema (2025-11-25): a titled single-select, an untitled one with
// enumNames, a titled multi-select, an optional enum and boolean with no default, a number with one.
const schema = {
  type: "object",
  properties: {
    plan: {
      type: "string",
      title: "Plan",
      oneOf: [
        { const: "basic", title: "Basic" },
        { const: "pro", title: "Professional" },
      ],
    },
    region: { type: "string", enum: ["eu", "us"], enumNames: ["Europe", "United States"] },
    addons: {
      type: "array",
      title: "Add-ons",
      items: {
        anyOf: [
          { const: "sso", title: "Single sign-on" },
          { const: "audit", title: "Audit log" },
          { const: "sla", title: "SLA" },
        ],
      },
      maxItems: 2,
    },
    tier: { type: "string", enum: ["gold", "silver"] },
    newsletter: { type: "boolean" },
    seats: { type: "integer", default: 5 },
  },
  required: ["plan", "region", "addons"],
} as const;

describe("MCP elicitation forms", () => {
  it("starts from defaults the schema gives only, and leaves untouched optional fields out", () => {
    const v = initialValues(schema as unknown as JsonSchema);
    expect(v).toEqual({ plan: "basic", region: "eu", addons: [], tier: "", newsletter: "", seats: 5 });
    expect(cleanValues(v)).toEqual({ plan: "basic", region: "eu", addons: [], seats: 5 });
  });

  it("shows titles and enumNames as the options' labels, a multi-select as a group of checkboxes", () => {
    const html = renderToStaticMarkup(
      createElement(SchemaFields, {
        schema: schema as unknown as JsonSchema,
        values: initialValues(schema as unknown as JsonSchema),
        onChange: () => {},
        idPrefix: "q",
      }),
    );
    expect(html).toContain(">Professional</option>");
    expect(html).toContain(">United States</option>");
    expect(html).not.toContain(">us</option>");
    expect(html).toMatch(/<fieldset id="q-addons"[^>]*aria-labelledby="q-addons-label"/);
    expect(html.match(/type="checkbox"/g)).toHaveLength(3);
    expect(html).toContain("Single sign-on");
    // An optional boolean without a default may stay unanswered: a select of Yes and No with an empty choice.
    expect(html).toMatch(/<select id="q-newsletter"[^>]*><option value="" selected="">—<\/option><option value="true">Yes<\/option>/);
  });
});

describe("parked and answered through the runtime protocol", () => {
  const h = databaseWithContext("sqlite");
  const runtime = async (ctx: AppContext) =>
    (await runtimeFromToken(ctx.db, (await createToken(ctx, admin, { body: { name: "mcp", role: "runtime" } })).token)) as RuntimeCaller;

  it("parks a multi-select, checks an answer against the titled choices and the item limit, accepts the right one", async () => {
    const rt = await runtime(h.ctx);
    const run = await registerRun(h.ctx, rt, { body: { externalId: "forms-1", framework: "mcp", agent: "accounts" } });
    const parked = await parkInterrupts(h.ctx, rt, {
      runId: run.id,
      body: { interrupts: [{ id: "q1", kind: "question", message: "Which plan?", responseSchema: schema as never }] },
    });
    const id = parked.interrupts[0].approvalId;
    const respond = (answer: Record<string, unknown>) =>
      decide(h.ctx, rev, { approvalId: id, body: { decision: "respond", answer } }).catch((e: { field?: string }) => e);
    expect(((await respond({ plan: "gold", region: "eu", addons: [] })) as { field?: string }).field).toBe("answer.plan");
    expect(((await respond({ plan: "pro", region: "eu", addons: ["sso", "audit", "sla"] })) as { field?: string }).field).toBe(
      "answer.addons",
    );
    await respond({ plan: "pro", region: "us", addons: ["sso", "audit"] });
    const [answered] = (await getRunView(h.ctx, rev, { runId: run.id })).approvals;
    // The schema's own default is part of the answer; the optional fields nobody gave are not.
    expect([answered.status, answered.decisions.at(-1)?.answer]).toEqual([
      "responded",
      { plan: "pro", region: "us", addons: ["sso", "audit"], seats: 5 },
    ]);
  });

  it("refuses a multi-select whose items list no choices, naming the field", async () => {
    const rt = await runtime(h.ctx);
    const run = await registerRun(h.ctx, rt, { body: { externalId: "forms-2", framework: "mcp", agent: "accounts" } });
    const bad = { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } };
    const e = (await parkInterrupts(h.ctx, rt, {
      runId: run.id,
      body: { interrupts: [{ id: "q2", kind: "question", message: "Tags?", responseSchema: bad as never }] },
    }).catch((x: unknown) => x)) as { field?: string };
    expect(e.field).toBe("interrupts.0.responseSchema.properties.tags.items");
  });
});
