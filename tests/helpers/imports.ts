// The relative imports of a source file, for the tests that check how files depend on each other
// (tests/meta/import-cycles.test.ts, tests/meta/layers.test.ts).
import { existsSync } from "node:fs";
import path from "node:path";
import { root } from "./sources";

// `import … from "x"`, `export … from "x"`, `import "x"` and `import("x")`, with comments removed first.
const SPECIFIERS =
  /(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']|(?:^|[\s;])import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The root-relative paths (among `known`) that `file` imports, type-only imports and re-exports included. */
export function relativeImports(file: string, source: string, known: Set<string>, alias?: { prefix: string; dir: string }): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  const out: string[] = [];
  for (const m of code.matchAll(SPECIFIERS)) {
    const spec = m[1] ?? m[2] ?? m[3];
    let base: string;
    if (spec.startsWith(".")) base = path.normalize(path.join(path.dirname(file), spec));
    else if (alias && spec.startsWith(alias.prefix)) base = path.join(alias.dir, spec.slice(alias.prefix.length));
    else continue;
    const candidates = [base, `${base}.ts`, `${base}.tsx`, base.replace(/\.js$/, ".ts"), path.join(base, "index.ts")];
    const target = candidates.find((c) => known.has(c));
    if (target) out.push(target);
    // Outside the scanned sources (the generated Prisma clients, JSON): nothing there imports lib back.
    else if (!candidates.some((c) => existsSync(path.join(root, c)))) throw new Error(`${file}: cannot resolve ${spec}`);
  }
  return out;
}
