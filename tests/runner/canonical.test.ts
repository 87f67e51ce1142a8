// Canonical JSON is what every stored digest was computed over: the loop form must give the same text as
// the form it replaced (kept here as the reference) for any value, or stored runs would read as corrupt.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, hashOf } from "@/lib/runner/canonical";

function reference(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(obj[k])}`).join(",")}}`;
}

describe("canonical JSON", () => {
  it("matches the reference form for any JSON value and any object with undefined members", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.anything({ withNullPrototype: true, withObjectString: false })), (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 2000, seed: 20261204 },
    );
  });

  it("sorts keys, drops undefined members, writes undefined array items as null", () => {
    expect(canonicalJson({ b: 1, a: [undefined, { d: undefined, c: "x" }] })).toBe('{"a":[null,{"c":"x"}],"b":1}');
    expect(canonicalJson(undefined)).toBe("null");
    // Key order does not change a hash.
    expect(hashOf({ args: { n: 1 }, tool: "tick" })).toBe(hashOf({ tool: "tick", args: { n: 1 } }));
  });
});
