// The OpenAPI document covers every route the app serves and generates a typed client: openapi-typescript
// (as a team would run it) yields response types, not `Record<string, never>`. Live responses are
// validated against the same document in e2e/openapi.spec.ts.
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "@/lib/openapi";

const root = path.resolve(import.meta.dirname, "../..");
const doc = openApiDocument("http://localhost:3000");

function routeFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((n) => {
    const rel = path.join(dir, n);
    if (statSync(path.join(root, rel)).isDirectory()) return routeFiles(rel);
    return n === "route.ts" ? [rel] : [];
  });
}

describe("OpenAPI document", () => {
  it("documents every method of every API route (auth and the document itself excepted)", () => {
    const served: string[] = [];
    for (const f of routeFiles("app/api")) {
      const p = `/${path.dirname(f).replace(/^app\//, "")}`.replace(/\[([^\]]+)\]/g, "{$1}");
      if (p.startsWith("/api/auth") || p === "/api/openapi.json") continue;
      for (const m of readFileSync(path.join(root, f), "utf8").matchAll(/export (?:const|async function) (GET|POST|PATCH|PUT|DELETE)\b/g))
        served.push(`${m[1]} ${p}`);
    }
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(served.length).toBeGreaterThan(15);
    expect(documented.sort()).toEqual(served.sort());
  });

  it("every response names a schema; none is a bare object", () => {
    for (const [p, ops] of Object.entries(doc.paths))
      for (const [m, op] of Object.entries(
        ops as Record<string, { responses: Record<string, { content: { "application/json": { schema: unknown } } }> }>,
      ))
        for (const [status, r] of Object.entries(op.responses)) {
          if (status === "304") continue; // no body
          // The streams: server-sent events, text by definition (the events are described in the summary).
          if ((p === "/api/events" || p === "/api/v1/runtime/runs/{runId}/decisions/stream") && status === "200") {
            expect(Object.keys(r.content)).toEqual(["text/event-stream"]);
            continue;
          }
          // Prometheus text, for a scraper.
          if (p === "/api/metrics" && status === "200") {
            expect(Object.keys(r.content)).toEqual(["text/plain"]);
            continue;
          }
          const schema = JSON.stringify(r.content["application/json"].schema);
          expect(schema, `${m} ${p} ${status}`).not.toBe('{"type":"object"}');
          expect(schema, `${m} ${p} ${status}`).toMatch(/#\/components\/schemas\//);
        }
  });

  it("openapi-typescript generates response types from it", async () => {
    const ts = astToString(await openapiTS(doc as never));
    for (const name of ["RunView", "Inbox", "RunList", "DecisionResult", "TimelinePage", "Error"]) expect(ts).toContain(`${name}: {`);
    const runView = ts.slice(ts.indexOf("RunView: {"), ts.indexOf("};", ts.indexOf("RunView: {")));
    expect(runView).toContain('conversation: components["schemas"]["Conversation"] | null;');
    const runPath = ts.slice(ts.indexOf('"/api/runs/{runId}": {'));
    expect(runPath).toMatch(/^"\/api\/runs\/\{runId\}": \{\s+parameters: \{/);
  });
});
