// The external runtimes of tests/fixtures/runtimes, each mode in a node process of its own, as a team would
// run them: the adapters' vitest file and the Chromium spec (e2e/runtimes.spec.ts) drive the same ones. Each
// process prints one JSON line last; every tool execution is appended to <dir>/executions.jsonl, which the
// tools never de-duplicate, so reading it back counts what ran.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");

export type RuntimeScript = "openai-agents.ts" | "langgraph.ts" | "mcp-elicitation.ts" | "ai-sdk.ts";

/** Runs one mode of a fixture runtime to its end against the console at AFK_URL with AFK_TOKEN; its last line. */
export async function runRuntime(
  script: RuntimeScript,
  mode: string,
  dir: string,
  env: { AFK_URL: string; AFK_TOKEN: string } & Record<string, string>,
): Promise<Record<string, unknown>> {
  // One node process with tsx's loader (the tsx command would start a second one for it).
  const r = await run(process.execPath, ["--import", "tsx", path.join(root, "tests/fixtures/runtimes", script), mode, dir], {
    env: { ...process.env, ...env },
    cwd: root,
    timeout: 120_000,
  });
  return JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
}

/** Every execution the fixture's tools recorded in dir, in order (none yet: an empty list). */
export function executionsIn(dir: string): Record<string, unknown>[] {
  let text: string;
  try {
    text = readFileSync(path.join(dir, "executions.jsonl"), "utf8");
  } catch {
    return [];
  }
  return text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
