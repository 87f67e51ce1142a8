// Values as people read them: the hints a schema's .meta() carries, read defensively, and the text of each value.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toJsonSchemaDto } from "@/lib/dto";
import {
  changeView,
  displayHint,
  fieldLabel,
  fieldViews,
  formatValue,
  inputMessage,
  majorToMinor,
  minorToMajor,
  readableText,
  summarizeArgs,
  unitOf,
} from "@/lib/display";

const refund = toJsonSchemaDto(
  z.object({
    order_id: z.string(),
    amount_cents: z.number().int().meta({ title: "Amount", display: "money", currency: "EUR", minorUnits: 2 }),
    reason: z.string().meta({ display: "long-text" }),
    due: z.iso.date().optional().meta({ display: "date" }),
    plan: z.enum(["basic", "pro"]).meta({ labels: { basic: "Basic plan", pro: "Pro plan" } }),
    disk: z.number().optional().meta({ unit: "GB" }),
  }),
);
const P = refund.properties!;

describe("display hints", () => {
  it("travel from zod's .meta() through the JSON schema the UI gets", () => {
    expect(displayHint(P.amount_cents)).toEqual({ title: "Amount", display: "money", currency: "EUR", minorUnits: 2 });
    expect(fieldLabel("amount_cents", P.amount_cents)).toBe("Amount");
    expect(fieldLabel("order_id", P.order_id)).toBe("Order id");
    expect(unitOf(P.amount_cents)).toBe("EUR");
    expect(unitOf(P.disk)).toBe("GB");
  });

  it("are checked key by key: what does not fit the vocabulary is ignored, the rest kept", () => {
    const hostile = { display: "<script>", currency: "euro", minorUnits: 99, title: "Amount", labels: { a: 5 }, unit: "" };
    expect(displayHint(hostile)).toEqual({ title: "Amount" });
    expect(displayHint(null)).toEqual({});
    expect(displayHint("money")).toEqual({});
    expect(formatValue(12500, hostile)).toBe("12500");
  });
});

describe("values", () => {
  it("money in minor units reads in major units, exactly", () => {
    expect(formatValue(12500, P.amount_cents)).toBe("€125.00");
    expect(formatValue(-5, P.amount_cents)).toBe("-€0.05");
    expect(formatValue(123456789, P.amount_cents)).toBe("€1,234,567.89");
    expect(formatValue(250, { display: "money", currency: "CHF" })).toBe("2.50 CHF");
    expect(formatValue(1500, { display: "money", currency: "JPY", minorUnits: 0 })).toBe("¥1,500");
    expect(formatValue(12.5, P.amount_cents)).toBe("12.5"); // not minor units: shown as stored
    expect(minorToMajor(7, 3)).toBe("0.007");
  });

  it("typed major units go back to minor units, or null", () => {
    expect(majorToMinor("125", 2)).toBe(12500);
    expect(majorToMinor("125.5", 2)).toBe(12550);
    expect(majorToMinor("0,05", 2)).toBe(5);
    expect(majorToMinor(".5", 2)).toBe(50);
    expect(majorToMinor("1.005", 2)).toBeNull();
    expect(majorToMinor("12abc", 2)).toBeNull();
    expect(majorToMinor("", 2)).toBeNull();
    expect(majorToMinor("99999999999999999", 2)).toBeNull();
  });

  it("dates, enums, units, booleans and nested values", () => {
    expect(formatValue("2026-12-05", P.due)).toBe("5 Dec 2026");
    expect(formatValue(Date.UTC(2026, 11, 5, 18, 7), { display: "datetime" })).toBe("5 Dec 2026, 18:07 UTC");
    expect(formatValue("not a date", P.due)).toBe("not a date");
    expect(formatValue("pro", P.plan)).toBe("Pro plan");
    expect(formatValue("enterprise", P.plan)).toBe("enterprise");
    expect(formatValue(1024, P.disk)).toBe("1,024 GB");
    expect(formatValue(true)).toBe("yes");
    expect(formatValue(null)).toBe("—");
    expect(formatValue({ a: [1] })).toBe('{"a":[1]}');
  });
});

describe("argument lists", () => {
  const args = { reason: "Arrived broken", amount_cents: 9000, order_id: "ORD-4242", extra: { nested: true } };

  it("in the schema's order, extra keys last, nested JSON pretty-printed", () => {
    const f = fieldViews(args, refund);
    expect(f.map((x) => x.key)).toEqual(["order_id", "amount_cents", "reason", "extra"]);
    expect(f[1]).toEqual({ key: "amount_cents", label: "Amount", text: "€90.00", long: false });
    expect(f[2].long).toBe(true);
    expect(f[3].text).toBe('{\n  "nested": true\n}');
  });

  it("summarized on one line for the inbox, each value cut", () => {
    expect(summarizeArgs(args, refund)).toBe('Order id: ORD-4242 · Amount: €90.00 · Reason: Arrived broken · Extra: {"nested":true}');
    expect(summarizeArgs({ note: "x".repeat(200) }, null)).toBe(`Note: ${"x".repeat(159)}…`);
    expect(summarizeArgs({ amount_cents: 1 }, { properties: "not an object" })).toBe("Amount cents: 1");
  });

  it("a change reads as its label and both values", () => {
    expect(changeView({ field: "amount_cents", before: 9000, after: 6000 }, refund)).toEqual({
      label: "Amount",
      before: "€90.00",
      after: "€60.00",
    });
  });

  it("a form's input becomes a user message of one field a line, with the stored value where it differs", () => {
    expect(inputMessage({ order_id: "ORD-4242", amount_cents: 9000, reason: "Arrived\nbroken" }, refund)).toBe(
      "Order id: ORD-4242\nAmount: €90.00 (amount_cents: 9000)\nReason:\nArrived\nbroken",
    );
  });
});

it("a tool's JSON result is pretty-printed; other text is left alone", () => {
  expect(readableText('{"order_id":"ORD-1","total_cents":7919}')).toBe('{\n  "order_id": "ORD-1",\n  "total_cents": 7919\n}');
  expect(readableText("{not json")).toBe("{not json");
  expect(readableText("Refunded 60.00")).toBe("Refunded 60.00");
});

describe("the first user message of a run started from a form", () => {
  it("lists the fields, and a plain schema-less input by its keys", () => {
    expect(inputMessage({ plan: "pro", seats: 3, tags: ["a"] }, null)).toBe('Plan: pro\nSeats: 3\nTags:\n[\n  "a"\n]');
  });
});
