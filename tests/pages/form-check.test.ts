// The start form's check: every invalid field at once, in words, from the JSON schema the form is built from.
import { expect, it } from "vitest";
import { z } from "zod";
import { toJsonSchemaDto } from "@/lib/dto";
import { checkValues } from "@/lib/form-check";

const schema = toJsonSchemaDto(
  z.object({
    order_id: z
      .string()
      .regex(/^ORD-\d{3,8}$/)
      .meta({ description: "Order ids look like ORD-12345" }),
    amount_cents: z.number().int().positive().max(10_000_000).meta({ display: "money", currency: "EUR", minorUnits: 2 }),
    reason: z.string().trim().min(3).max(10),
    plan: z.enum(["a", "b"]),
    seats: z.number().int().min(1).optional(),
  }),
);

it("names every missing field at once", () => {
  expect(checkValues(schema, {})).toEqual({
    order_id: "Required",
    amount_cents: "Required",
    reason: "Required",
    plan: "Required",
  });
});

it("says what is wrong in words, with money bounds in major units and the description for a pattern", () => {
  expect(checkValues(schema, { order_id: "12345", amount_cents: "12.345", reason: "ok", plan: "c", seats: 1.5 })).toEqual({
    order_id: "Order ids look like ORD-12345",
    amount_cents: "Enter an amount such as 125.00",
    reason: "At least 3 characters",
    plan: "Choose one of the options",
    seats: "Enter a whole number",
  });
  expect(checkValues(schema, { order_id: "ORD-123", amount_cents: 0, reason: "x".repeat(11), plan: "a", seats: 0 })).toEqual({
    amount_cents: "Must be more than zero",
    reason: "At most 10 characters",
    seats: "At least 1",
  });
  expect(checkValues(schema, { order_id: "ORD-123", amount_cents: 10_000_001, reason: "fine", plan: "b" })).toEqual({
    amount_cents: "At most €100,000.00",
  });
});

it("reads an untrusted schema without failing", () => {
  expect(checkValues(null, { a: 1 })).toEqual({});
  expect(checkValues({ properties: { a: { type: "string", pattern: "(" } }, required: "a" }, { a: "x" })).toEqual({});
});
