// Short files beat clever ones: a file in lib/ over ~400 lines must say at its top why it is one file
// (a comment among its first lines containing "one file"). This keeps the rooms small enough to build on.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { root, sourceFiles } from "../helpers/sources";

const LIMIT = 400;

const sources = (dir: string) => sourceFiles(dir, (n) => /\.(ts|tsx)$/.test(n));

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
