// The layout in docs/architecture.md matches the tree: every path it names exists, and every entry of lib/
// and every file of lib/runner/ is named there. The README, the front door, links to it.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const architecture = readFileSync(path.join(root, "docs/architecture.md"), "utf8");
const start = architecture.indexOf("## Project layout");
const end = architecture.indexOf("\n## ", start + 1);
const layout = architecture.slice(start, end === -1 ? undefined : end);

describe("project layout (docs/architecture.md)", () => {
  it("names only paths that exist", () => {
    expect(start).toBeGreaterThan(-1);
    const named = [...layout.matchAll(/^(\S+?)\/?\s{2,}/gm)]
      .map((m) => m[1])
      .filter((p) => !p.includes("{") && !p.includes(",") && !p.startsWith("`"));
    expect(named.length).toBeGreaterThan(15);
    expect(named.filter((p) => !existsSync(path.join(root, p)))).toEqual([]);
  });

  it("names every entry of lib/ and every file of lib/runner/", () => {
    const lib = readdirSync(path.join(root, "lib")).filter((n) => n !== "generated");
    expect(lib.filter((n) => !layout.includes(`lib/${n}`))).toEqual([]);
    const runner = readdirSync(path.join(root, "lib/runner")).filter((n) => n !== "index.ts");
    expect(runner.filter((n) => !new RegExp(`\\b${n.replace(".", "\\.")}\\b`).test(layout))).toEqual([]);
  });
});
