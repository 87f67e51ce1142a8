// Short files beat clever ones: a file in lib/ over ~400 lines must say at its top why it is one file
// (a comment among its first lines containing "one file"). This keeps the rooms small enough to build on.
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const LIMIT = 400;

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) return rel === "lib/generated" ? [] : sources(rel);
    return /\.(ts|tsx)$/.test(name) ? [rel] : [];
  });
}

const justified = (text: string) =>
  text
    .split("\n")
    .slice(0, 16)
    .filter((l) => l.trimStart().startsWith("//"))
    .join(" ")
    .toLowerCase()
    .includes("one file");

describe("file size", () => {
  it(`every file in lib/ over ${LIMIT} lines says at its top why it is one file`, () => {
    const offenders = sources("lib").flatMap((f) => {
      const text = readFileSync(path.join(root, f), "utf8");
      const n = text.split("\n").length;
      return n > LIMIT && !justified(text) ? [`${f}: ${n} lines`] : [];
    });
    expect(offenders).toEqual([]);
  });

  it("the check recognises a justified header and rejects an unjustified one", () => {
    expect(justified("// Why this is one file: the mapping must stay in one place.\nexport {}")).toBe(true);
    expect(justified("// Response shapes.\nexport {}")).toBe(false);
  });
});
