// One owner per concept (issue 12): store keys and run/approval ids are built and parsed only in
// lib/runner (keys.ts, ids.ts); env is read only in lib/env.ts. This scans the source outside those owners.
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) return rel === "lib/generated" ? [] : sources(rel);
    return /\.(ts|tsx|mjs)$/.test(name) ? [rel] : [];
  });
}

const scanned = ["lib", "agents", "app", "components", "scripts", "e2e"].flatMap(sources).concat(["proxy.ts", "instrumentation.ts"]);
const lines = (file: string) =>
  readFileSync(path.join(root, file), "utf8")
    .split("\n")
    .map((text, i) => ({ where: `${file}:${i + 1}`, text }));

const KEY_OR_ID = [
  /["'`](checkpoint|approval|effect|runtime|message|toolexec|subexec):/, // a store key spelled out
  /\.split\(\s*["'`][:.]["'`]\s*\)/, // a key or id taken apart
  /delegate_to_/, // the delegation tool's name
  /["'`]system:/, // the runtime's decider
];

describe("ownership", () => {
  it("no key or id string is built or parsed outside lib/runner", () => {
    const offenders = scanned
      .filter((f) => !f.startsWith("lib/runner/"))
      .flatMap(lines)
      .filter((l) => KEY_OR_ID.some((re) => re.test(l.text)));
    expect(offenders.map((o) => `${o.where}: ${o.text.trim()}`)).toEqual([]);
  });

  it("the scan sees the runner's own key code (it would catch a copy)", () => {
    const runner = sources("lib/runner").flatMap(lines);
    expect(runner.some((l) => KEY_OR_ID[0].test(l.text))).toBe(true);
    expect(runner.some((l) => KEY_OR_ID[1].test(l.text))).toBe(true);
  });

  it("env is read only in lib/env.ts (scripts and tooling that spawn processes excepted)", () => {
    const offenders = scanned
      .filter((f) => f !== "lib/env.ts" && !f.startsWith("scripts/") && !f.startsWith("e2e/"))
      .flatMap(lines)
      .filter((l) => /process\.env\b/.test(l.text) && !/NEXT_RUNTIME/.test(l.text));
    expect(offenders.map((o) => `${o.where}: ${o.text.trim()}`)).toEqual([]);
  });
});
