// No import cycle anywhere in lib/: every relative import (type-only ones included: a cycle of types is
// still two modules that cannot be read one without the other) of every file is parsed, and a depth-first
// walk fails on the first edge back into the path it is on, printing the cycle.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { relativeImports } from "../helpers/imports";
import { root, sourceFiles } from "../helpers/sources";

const sources = (dir: string) => sourceFiles(dir, (n) => /\.tsx?$/.test(n) && !/\.test\.tsx?$/.test(n));

function findCycles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (f: string) => {
    state.set(f, "open");
    stack.push(f);
    for (const d of graph.get(f) ?? []) {
      if (state.get(d) === "open") cycles.push([...stack.slice(stack.indexOf(d)), d]);
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(f, "done");
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f);
  return cycles;
}

describe("import cycles", () => {
  it("no file in lib/ imports itself back through any chain of relative imports", () => {
    const files = sources("lib");
    const known = new Set(files);
    const graph = new Map(files.map((f) => [f, relativeImports(f, readFileSync(path.join(root, f), "utf8"), known)]));
    expect(graph.size).toBeGreaterThan(50);
    expect(findCycles(graph).map((c) => c.join(" -> "))).toEqual([]);
  });

  it("the walk sees a cycle, type-only imports and re-exports included", () => {
    const known = new Set(["lib/a.ts", "lib/b.ts", "lib/c/index.ts"]);
    const a = relativeImports("lib/a.ts", 'import type { B } from "./b.ts";\n// import { x } from "./c";', known);
    const b = relativeImports("lib/b.ts", 'export { C } from "./c";', known);
    const c = relativeImports("lib/c/index.ts", 'const m = await import("../a.ts");', known);
    expect([a, b, c]).toEqual([["lib/b.ts"], ["lib/c/index.ts"], ["lib/a.ts"]]);
    const cycles = findCycles(
      new Map([
        ["lib/a.ts", a],
        ["lib/b.ts", b],
        ["lib/c/index.ts", c],
      ]),
    );
    expect(cycles.map((x) => x.join(" -> "))).toEqual(["lib/a.ts -> lib/b.ts -> lib/c/index.ts -> lib/a.ts"]);
  });
});
