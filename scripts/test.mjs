#!/usr/bin/env node
// `npm test`: type check, unit/integration tests (vitest), production build, e2e (Playwright), the chaos
// test of several instances on PostgreSQL, in order;
// stops at the first failure and prints each runner's summary line at the end.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

// The PostgreSQL suite (and the chaos test) run whenever PostgreSQL's binaries are installed: with no
// TEST_POSTGRES_URL given, a throwaway cluster is started here on a free port and removed at the end.
let ownCluster = null;
const pgBin = () => {
  const dir = "/usr/lib/postgresql";
  if (!existsSync(dir)) return null;
  const v = readdirSync(dir)
    .sort((a, b) => Number(b) - Number(a))
    .find((x) => existsSync(path.join(dir, x, "bin", "initdb")));
  return v ? path.join(dir, v, "bin") : null;
};
if (!process.env.TEST_POSTGRES_URL && process.env.AFK_TEST_NO_POSTGRES !== "1" && pgBin()) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "afk-test-pg."));
  const port = String(56000 + Math.floor(Math.random() * 2000));
  try {
    const url = execFileSync("bash", [path.join(root, ".ci/pg-start.sh")], {
      env: { ...process.env, PGDIR: dir, PGPORT: port, PGDIR_FILE: path.join(dir, ".dir") },
      encoding: "utf8",
    }).trim();
    process.env.TEST_POSTGRES_URL = url;
    ownCluster = dir;
    console.log(`test: started a throwaway PostgreSQL at ${url}`);
  } catch (e) {
    console.log(`test: PostgreSQL binaries found but the cluster did not start (${String(e).slice(0, 200)}); PostgreSQL suite skipped`);
  }
}
const stopCluster = () => {
  if (ownCluster)
    execFileSync("bash", [path.join(root, ".ci/pg-stop.sh")], { env: { ...process.env, PGDIR: ownCluster }, stdio: "ignore" });
  ownCluster = null;
};
process.on("exit", stopCluster);
const postgres = process.env.TEST_POSTGRES_URL
  ? "PostgreSQL suite: run"
  : "PostgreSQL suite: skipped (no PostgreSQL binaries and no TEST_POSTGRES_URL)";
const bin = (n) => path.join(root, "node_modules", ".bin", n);
// Where the bundle step assembles the deployable folder (removed at the end).
const bundleDir = path.join(os.tmpdir(), `afk-bundle-${process.pid}`);
process.on("exit", () => rmSync(bundleDir, { recursive: true, force: true }));
const steps = [
  // Formatting and lint rules (biome.jsonc); fails on any diagnostic, prints nothing on a clean tree.
  ["format + lint (biome)", bin("biome"), ["ci", "--error-on-warnings", "."], /Checked \d+ files|Found \d+ (errors?|warnings?)/],
  // The route types (.next/types) first, so that tsc checks the pages against them as `next build` would:
  // the build below then skips its own check of the same files (AFK_TEST_BUILD, next.config.ts).
  ["route types (next typegen)", bin("next"), ["typegen"], /Types generated|rror/],
  ["type check", bin("tsc"), ["--noEmit"], /error TS/],
  ["unit + integration (vitest)", bin("vitest"), ["run"], /Tests\s+.*(passed|failed)/],
  // One build serves both: `next start` for the e2e servers and .next/standalone for the bundle.
  ["production build", bin("next"), ["build"], /Compiled successfully|Failed/, { AFK_STANDALONE: "1", AFK_TEST_BUILD: "1" }],
  // Two Playwrights side by side: the projects on the shared servers (console, latency, sso), and those
  // that start servers of their own (dev: next dev; visual, notify: next start on a fresh database) on ports 50
  // above (E2E_LANE=own-servers, playwright.config.ts). The second is mostly a compiler and a browser
  // waiting on each other, which the first, one browser against one server, leaves a core for.
  [
    "e2e (playwright)",
    bin("playwright"),
    ["test", "--project=console", "--project=latency", "--project=sso"],
    // The counts, and the titles Playwright lists under "failed" and "flaky", so the summary names them.
    /\d+ (passed|failed|flaky|skipped)|^\[[\w-]+\] › /,
    {},
    [
      "own servers",
      ["test", "--project=dev", "--project=visual", "--project=notify"],
      { E2E_LANE: "own-servers", E2E_PORT: String(Number(process.env.E2E_PORT ?? 3100) + 50) },
    ],
  ],
  // The deployable folder (npm run bundle) assembled from that build, copied and started with only Node.
  ["bundle", process.execPath, ["scripts/bundle.mjs", "--no-build", "--out", bundleDir], /^bundle: done/],
  [
    "bundle started from a copy (SQLite; PostgreSQL web-only + worker)",
    bin("tsx"),
    ["scripts/bundle-check.ts", bundleDir],
    /^bundle-check: (ok|postgresql: skipped)/,
  ],
  // The operator's deploy without Docker: the image's command and environment as nobody on a read-only
  // tree (SQLite), compose's services (PostgreSQL); the first admin and a token from the CLI, Chromium.
  [
    "deploy as an operator (image and compose, first admin, Chromium)",
    bin("tsx"),
    ["scripts/deploy-check.ts", bundleDir],
    /^deploy-check: (ok|postgresql: skipped)/,
  ],
  // The same bundle on the Node the image ships (24), better-sqlite3 compiled for it; SQLite and PostgreSQL.
  [
    "bundle on the image's Node (24 LTS)",
    process.execPath,
    ["scripts/bundle-node.mjs", bundleDir, "24"],
    /^bundle-(check: ok|node: skipped)/,
  ],
  // Several instances under SIGKILL on PostgreSQL; prints "skipped" without TEST_POSTGRES_URL.
  [
    "chaos (2 instances + worker, PostgreSQL)",
    bin("tsx"),
    ["--conditions=react-server", "scripts/chaos.ts"],
    /^chaos: (\d+ runs|ok|FAILED|no PostgreSQL)/,
  ],
  // The embedded topology: one instance on SQLite (synchronous=FULL), SIGKILLed at random.
  [
    "chaos (one instance, SQLite)",
    bin("tsx"),
    ["--conditions=react-server", "scripts/chaos.ts", "--sqlite"],
    /^chaos \(SQLite\): (\d+ runs|ok|FAILED)/,
  ],
];

// AFK_TEST_ONLY=<name prefix>: only the steps whose name starts so (e.g. "e2e", "chaos"), as npm test runs them.
const chosen = steps.filter(([name]) => name.startsWith(process.env.AFK_TEST_ONLY ?? ""));
const summaries = [];
// Runs one command; a step's side command (its 6th element) runs at the same time, its lines prefixed.
const run = (cmd, args, env, prefix = "") =>
  new Promise((resolve) => {
    let out = "";
    const rest = { stdout: "", stderr: "" };
    const p = spawn(cmd, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: "0", ...env } });
    for (const stream of ["stdout", "stderr"])
      p[stream].on("data", (d) => {
        out += d;
        if (!prefix) return process[stream].write(d);
        const parts = (rest[stream] + d).split("\n");
        rest[stream] = parts.pop();
        for (const l of parts) process[stream].write(`${prefix}${l}\n`);
      });
    p.on("close", (code) => {
      for (const stream of ["stdout", "stderr"]) if (rest[stream]) process[stream].write(`${prefix}${rest[stream]}\n`);
      resolve({ code, out });
    });
  });
for (const [name, cmd, args, summaryRe, env = {}, side] of chosen) {
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  const results = await Promise.all([run(cmd, args, env), ...(side ? [run(cmd, side[1], { ...env, ...side[2] }, `[${side[0]}] `)] : [])]);
  const code = results.find((r) => r.code !== 0)?.code ?? 0;
  const out = results.map((r) => r.out).join("\n");
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  const lines = out
    .split("\n")
    .map((l) => l.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "").trim())
    .filter((l) => summaryRe.test(l));
  if (name === "type check") lines.splice(0, lines.length, `${lines.length} type errors`);
  const skipped = code === 0 && lines.some((l) => /skipped/.test(l) && !/\d+ passed/.test(l));
  summaries.push(
    `${name}: ${code !== 0 ? `FAILED (exit ${code})` : skipped ? "skipped" : "ok"} in ${secs}s${lines.length ? ` — ${lines.join("; ")}` : ""}`,
  );
  if (code !== 0) break;
}
console.log(`\n=== summary ===\n${summaries.join("\n")}\n${postgres}`);
stopCluster();
process.exit(summaries.every((s) => / ok | skipped /.test(s)) && summaries.length === chosen.length ? 0 : 1);
