// The JSON schemas pages hand to client forms (the start form's input schemas, an approval's argument
// schema, a question's answer schema) are plain objects as React requires of props crossing from a
// Server Component: in development it logs "Only plain objects can be passed to Client Components" for
// anything else. The check below is React's own (isSimpleObject in react-server-dom): Object's prototype,
// every own property enumerable, no symbol keys, all the way down.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentFiles } from "../../agents/index.ts";
import { loadAgents } from "@/lib/agents/load";
import { toJsonSchemaDto } from "@/lib/dto";
import { delegateTaskSchema } from "@/lib/runner";

function notPlain(v: unknown, at = "$"): string[] {
  if (v === null || typeof v !== "object") return typeof v === "function" ? [`${at}: a function`] : [];
  if (Array.isArray(v)) return v.flatMap((x, i) => notPlain(x, `${at}[${i}]`));
  const found: string[] = [];
  if (Object.getPrototypeOf(v) !== Object.prototype) found.push(`${at}: prototype is not Object.prototype`);
  for (const [k, d] of Object.entries(Object.getOwnPropertyDescriptors(v)))
    if (!d.enumerable || d.get) found.push(`${at}.${k}: not an enumerable data property`);
  if (Object.getOwnPropertySymbols(v).length) found.push(`${at}: has symbol keys`);
  return [...found, ...Object.entries(v).flatMap(([k, x]) => notPlain(x, `${at}.${k}`))];
}

describe("toJsonSchemaDto", () => {
  it("keeps every keyword of z.toJSONSchema's output in plain objects", () => {
    const schema = z.object({
      name: z.string().min(1).max(80).describe("Who"),
      kind: z.enum(["a", "b"]),
      count: z.number().int().min(0).default(1),
      nested: z.object({ flag: z.boolean() }).optional(),
      tags: z.array(z.string()),
      pair: z.tuple([z.string(), z.number()]),
      maybe: z.string().nullable(),
    });
    const dto = toJsonSchemaDto(schema);
    expect(notPlain(dto)).toEqual([]);
    expect(dto).toEqual(z.toJSONSchema(schema));
    expect(dto.properties?.kind.enum).toEqual(["a", "b"]);
    expect(dto.required).toContain("name");
  });

  it("builds a schema's JSON Schema once, frozen, so that no page changes what the next one gets", () => {
    const schema = z.object({ order_id: z.string(), lines: z.array(z.object({ sku: z.string() })) });
    const dto = toJsonSchemaDto(schema);
    expect(toJsonSchemaDto(schema)).toBe(dto);
    expect(Object.isFrozen(dto) && Object.isFrozen(dto.properties?.lines.items)).toBe(true);
    expect(() => {
      (dto.properties as Record<string, unknown>).extra = {};
    }).toThrow(TypeError);
    // Another schema of the same shape is its own entry.
    expect(toJsonSchemaDto(z.object({ order_id: z.string(), lines: z.array(z.object({ sku: z.string() })) }))).not.toBe(dto);
  });

  it("gives plain schemas for every agent's input, every tool's arguments, every answer and the delegation task", () => {
    const { all } = loadAgents(agentFiles, {
      db: () => {
        throw new Error("no database in this test");
      },
      idempotentTools: true,
      dataDir: "data",
    });
    const schemas: [string, z.ZodType][] = [["delegation task", delegateTaskSchema]];
    for (const a of all) {
      if (a.inputSchema) schemas.push([`${a.name} input`, a.inputSchema]);
      for (const t of a.tools) {
        schemas.push([`${a.name}.${t.name} arguments`, t.schema]);
        if (t.asksHuman?.answerSchema) schemas.push([`${a.name}.${t.name} answer`, t.asksHuman.answerSchema]);
      }
    }
    expect(schemas.length).toBeGreaterThan(all.length);
    for (const [what, schema] of schemas) expect(notPlain(toJsonSchemaDto(schema)), what).toEqual([]);
  });
});
