// States as types (issue 40): outside the runner's definition (lib/runner/run-states.ts: RUN_STATES, RUN,
// transition()) and the Run row's moves (lib/db/run-moves.ts), no code in lib/ spells a run state or the
// placeholder lease owner: it names them (RUN.paused, ROW_MOVES.reserve, QUEUED), so the compiler sees
// every use and the lease SQL is built from the table. A run state is recognised where it meets a state:
// compared with one, assigned to one, written as one in SQL or in a where clause, or reserved from.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RUN_STATES } from "@/lib/runner/run-states";
import { ROW_MOVES, moveTo, movesFrom } from "@/lib/db/run-moves";
import { root, sourceFiles } from "../helpers/sources";

const OWNERS = ["lib/runner/", "lib/db/run-moves.ts"];

const S = `(?:${RUN_STATES.join("|")})`;
const Q = "[\"'`]";
const PATTERNS = [
  new RegExp(`\\bstate\\s*(?:===|!==|==|!=|=|:|\\?\\?)\\s*${Q}${S}${Q}`, "i"), // state === "paused", state: "failed"
  new RegExp(`${Q}${S}${Q}\\s*(?:===|!==)\\s*[\\w.?]*\\bstate\\b`, "i"), // "paused" === run.state
  new RegExp(`"state"\\s*(?:=|IN\\s*\\()\\s*'${S}'`, "i"), // SQL: "state" = 'running'
  new RegExp(`\\bstate\\s*:\\s*(?:\\{\\s*in:\\s*|z\\.enum\\()\\[\\s*${Q}${S}${Q}`, "i"), // state: { in: ["pending"… or z.enum(["running"…
  new RegExp(`${Q}queued${Q}`), // the placeholder lease owner
  new RegExp(`\\bsubmit\\([^,()]+,\\s*${Q}${S}${Q}`), // a reservation's starting state
];

/** Lines of `source` (comments removed) that spell a run state where a state is meant. */
export function spelledStates(file: string, source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  return code
    .split("\n")
    .map((text, i) => ({ where: `${file}:${i + 1}`, text: text.trim() }))
    .filter((l) => PATTERNS.some((p) => p.test(l.text)))
    .map((l) => `${l.where}: ${l.text}`);
}

describe("run states", () => {
  const files = sourceFiles("lib", (n) => /\.tsx?$/.test(n)).filter((f) => !OWNERS.some((o) => f.startsWith(o)));

  it("no file in lib/ spells a run state outside the runner's definition and the row's moves", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((f) => spelledStates(f, readFileSync(path.join(root, f), "utf8")))).toEqual([]);
  });

  it("the scan catches each way a state was spelled before, and leaves phases and approval statuses alone", () => {
    const old = [
      'if (run.state !== "paused") throw new ConflictError("not paused");',
      'WHERE "id" = $1 AND "state" = \'running\' AND "leaseOwner" = \'queued\'',
      'where: { state: { in: ["running", "pending"] }, corruptKey: null },',
      'state: z.enum(["running", "completed", "failed", "cancelled"]),',
      'await setRunState(tx, runId, { state: "running", error: null });',
      'start = (runId: string) => this.submit(runId, "pending");',
      'let state = "running";',
    ];
    expect(old.map((l) => spelledStates("x.ts", l).length)).toEqual(old.map(() => 1));
    const fine = [
      'phase: result.state === RUN.paused ? "paused" : undefined,',
      'if (rec.status !== "pending") continue;',
      "state: RUN.failed,",
    ];
    expect(fine.flatMap((l) => spelledStates("x.ts", l))).toEqual([]);
  });

  it("the lease SQL is built from the table: every move starts from states of the runner's", () => {
    for (const [name, move] of Object.entries(ROW_MOVES)) {
      for (const s of [...move.from, ...move.to]) expect(RUN_STATES, `${name}: ${s}`).toContain(s);
    }
    const runs = readFileSync(path.join(root, "lib/db/runs.ts"), "utf8");
    for (const move of ["reserve", "takeOver", "hold", "finish", "recover"])
      expect(runs, move).toMatch(new RegExp(`["(]${move}"?\\)|ROW_MOVES\\.${move}|"${move}"`));
  });

  it("a move the table does not have is refused", () => {
    expect([movesFrom("reserve", "paused"), movesFrom("reserve", "completed"), movesFrom("reserve", "running")]).toEqual([
      true,
      false,
      false,
    ]);
    expect(moveTo("finish", "paused")).toBe("paused");
    expect(() => moveTo("finish", "pending")).toThrow(/does not end in pending/);
    expect(() => moveTo("settle", "paused")).toThrow();
  });
});
