// One owner per concept (issue 12): store keys and run/approval ids are built and parsed only in
// lib/runner (keys.ts, ids.ts); env is read only in lib/env.ts; the database is touched only in lib/db
// (issue 24). This scans the source outside those owners.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { root, sourceFiles } from "../helpers/sources";

const sources = (dir: string) => sourceFiles(dir, (n) => /\.(ts|tsx|mjs)$/.test(n));

const scanned = ["lib", "agents", "app", "components", "scripts", "bench", "e2e"]
  .flatMap(sources)
  .concat(["proxy.ts", "instrumentation.ts"]);
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

  it("env is read only in lib/env.ts (scripts, benchmarks and tooling that spawn processes excepted)", () => {
    const offenders = scanned
      .filter((f) => f !== "lib/env.ts" && !f.startsWith("scripts/") && !f.startsWith("bench/") && !f.startsWith("e2e/"))
      .flatMap(lines)
      .filter((l) => /process\.env\b/.test(l.text) && !/NEXT_RUNTIME/.test(l.text));
    expect(offenders.map((o) => `${o.where}: ${o.text.trim()}`)).toEqual([]);
  });

  describe("the database is touched only in lib/db", () => {
    it("no file outside lib/db uses a model, a transaction, raw SQL, a driver or the generated clients", () => {
      const offenders = dbScanned.filter((f) => !f.startsWith("lib/db/")).flatMap((f) => dbUses(f, read(f)).filter((u) => !allowed(u)));
      expect(offenders.map((u) => `${u.where}: ${u.text}`)).toEqual([]);
    });

    it("the scan sees lib/db's own code and would catch a copy elsewhere", () => {
      const own = sources("lib/db").flatMap((f) => dbUses(f, read(f)));
      for (const kind of ["model", "transaction", "raw SQL", "queryRows", "driver", "generated client"])
        expect(
          own.some((u) => u.kind === kind),
          kind,
        ).toBe(true);
      // A statement copied out of lib/db into, say, lib/runs, spread over lines as the formatter writes it.
      const copy = `import { Prisma } from "../generated/sqlite/client.ts";\nconst rows = await db.stateEntry\n  .findMany({ where: { kind: "approval" } });\nawait ctx.db.$transaction(async (tx) => tx.run.update({}));\nawait tx.$executeRaw\`UPDATE "Run"\`;\nconst r = await queryRows(db, q);\nnew Database(file);`;
      const found = dbUses("lib/runs/copy.ts", copy);
      expect(found.map((u) => u.kind).sort()).toEqual([
        "driver",
        "generated client",
        "model",
        "model",
        "queryRows",
        "raw SQL",
        "transaction",
      ]);
      expect(found.filter((u) => !allowed(u))).toHaveLength(found.length);
    });

    it("every exception is still needed (a file listed uses the database, a directory exists)", () => {
      for (const f of Object.keys(DB_SCRIPTS)) expect(dbUses(f, read(f)).length, f).toBeGreaterThan(0);
      for (const d of Object.keys(DB_DIRS)) expect(statSync(path.join(root, d)).isDirectory(), d).toBe(true);
      const agentRows = sources("agents").flatMap((f) => dbUses(f, read(f)));
      for (const m of AGENT_MODELS)
        expect(
          agentRows.some((u) => u.model === m),
          m,
        ).toBe(true);
    });
  });
});

// ---- The database scan ----

// Tests and e2e specs build, seed and inspect their own scratch databases.
const DB_DIRS: Record<string, string> = {
  "tests/": "scratch databases: created, seeded and inspected by the tests themselves",
  "e2e/": "reads the e2e server's SQLite file to check what the browser did",
};
// Scripts and benchmarks that set up or measure a database from outside the app.
const DB_SCRIPTS: Record<string, string> = {
  "scripts/seed.ts": "creates the demo users and runs",
  "bench/bench.ts": "measures the store (Prisma vs driver) and reads PostgreSQL's fsync setting",
  "bench/bench-runner-side.ts": "measures the bytes a run stored, with the code of the checkout it measures",
  "bench/bench-console.ts": "bulk-seeds 100,000 runs",
  "bench/bench-notify.ts": "creates the benchmark's reviewers and reads when each request was made",
  "bench/bench-http.ts": "creates the benchmark's admin, token and runs",
  "bench/bench-workers.ts": "polls run counts while workers drain a queue",
  "bench/bench-queue.ts": "polls run counts and lease owners, counts the queue's jobs",
  "scripts/chaos.ts": "counts runs, effects and audit entries to check the invariants",
  "scripts/bundle.mjs": "names the database packages it copies into the bundle (opens no database)",
  "scripts/bundle-compile.mjs": "keeps the database packages external when it compiles the bundle's scripts (opens no database)",
  "scripts/node-runtime.mjs": "compiles the SQLite driver's native module for another Node (opens no database)",
  "scripts/with-node.mjs": "swaps the SQLite driver's native module for another Node's while a command runs (opens no database)",
};
// The demo agents' tools write their own business rows (refunds, outbox messages, deployments): the
// effects the runner journals, not console state. No other model is theirs to touch.
const AGENT_MODELS = ["refund", "outboxMessage", "deployment"];

const models = [...readFileSync(path.join(root, "prisma/models.prisma"), "utf8").matchAll(/^model (\w+) \{/gm)].map(
  (m) => m[1][0].toLowerCase() + m[1].slice(1),
);
const DELEGATE_METHODS =
  "findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|findMany|create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany|count|aggregate|groupBy";
const DB_USES: { kind: string; re: RegExp }[] = [
  // `db.run.findMany(`, also split over lines (`db.webhookDelivery\n  .update(`).
  { kind: "model", re: new RegExp(`\\.(${models.join("|")})\\s*\\.\\s*(?:${DELEGATE_METHODS})\\s*\\(`, "g") },
  { kind: "transaction", re: /\$transaction\b/g },
  { kind: "raw SQL", re: /\$(?:queryRaw|executeRaw)\w*/g },
  { kind: "queryRows", re: /\bqueryRows\b/g },
  { kind: "driver", re: /\bdriverOf\b|["']better-sqlite3["']|\bnew Database\(|["']@prisma\/(?:adapter|client)/g },
  { kind: "generated client", re: /generated\/(?:sqlite|postgres)/g },
];

type DbUse = { where: string; file: string; kind: string; model?: string; text: string };

function dbUses(file: string, text: string): DbUse[] {
  const found: DbUse[] = [];
  for (const { kind, re } of DB_USES)
    for (const m of text.matchAll(re)) {
      const line = text.slice(0, m.index).split("\n").length;
      found.push({ where: `${file}:${line}`, file, kind, model: kind === "model" ? m[1] : undefined, text: m[0].replace(/\s+/g, "") });
    }
  return found;
}

function allowed(u: DbUse): boolean {
  if (Object.keys(DB_DIRS).some((d) => u.file.startsWith(d))) return true;
  if (u.file in DB_SCRIPTS) return true;
  return u.file.startsWith("agents/") && u.kind === "model" && AGENT_MODELS.includes(u.model ?? "");
}

const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const dbScanned = [...scanned, ...sources("tests")];
