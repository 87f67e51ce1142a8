#!/usr/bin/env node
// `npm test`: type check, unit/integration tests (vitest), production build, e2e (Playwright), the chaos
// test of several instances on PostgreSQL, in order;
// stops at the first failure and prints each runner's summary line at the end.
import { spawn } from "node:child_process";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const bin = (n) => path.join(root, "node_modules", ".bin", n);
const steps = [
  ["type check", bin("tsc"), ["--noEmit"], /error TS/],
  ["unit + integration (vitest)", bin("vitest"), ["run"], /Tests\s+.*(passed|failed)/],
  ["production build", bin("next"), ["build"], /Compiled successfully|Failed/],
  ["e2e (playwright)", bin("playwright"), ["test"], /\d+ (passed|failed|flaky|skipped)/],
  // Several instances under SIGKILL on PostgreSQL; prints "skipped" without TEST_POSTGRES_URL.
  ["chaos (2 instances + worker, PostgreSQL)", bin("tsx"), ["scripts/chaos.ts"], /^chaos: (\d+ runs|ok|FAILED|no PostgreSQL)/],
];

const summaries = [];
for (const [name, cmd, args, summaryRe] of steps) {
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  let out = "";
  const code = await new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: "0" } });
    p.stdout.on("data", (d) => { process.stdout.write(d); out += d; });
    p.stderr.on("data", (d) => { process.stderr.write(d); out += d; });
    p.on("close", resolve);
  });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  const lines = out.split("\n").map((l) => l.replace(/\x1b\[[0-9;]*m/g, "").trim()).filter((l) => summaryRe.test(l));
  if (name === "type check") lines.splice(0, lines.length, `${lines.length} type errors`);
  summaries.push(`${name}: ${code === 0 ? "ok" : `FAILED (exit ${code})`} in ${secs}s${lines.length ? ` — ${lines.join("; ")}` : ""}`);
  if (code !== 0) break;
}
console.log("\n=== summary ===\n" + summaries.join("\n"));
process.exit(summaries.every((s) => s.includes(": ok")) && summaries.length === steps.length ? 0 : 1);
