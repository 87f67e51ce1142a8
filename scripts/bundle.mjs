#!/usr/bin/env node
// npm run bundle [-- --out <dir>] [--no-build]: a folder that runs the console with nothing else installed
// but Node 20 — what the image copies and what CI starts from a copy. Inside it:
//   server.js            the web app (Next's standalone server: PORT, HOSTNAME; it runs runs itself unless AFK_WORKERS=0)
//   worker.mjs           the PostgreSQL worker (npm run worker)
//   scripts/db.mjs       migrate (+ seed): `node scripts/db.mjs deploy` or `setup`, the provider from DATABASE_URL
//   scripts/seed.mjs     the demo users and runs (db.mjs setup runs it; skip it in production with `deploy`)
//   scripts/afk.mjs      the CLI (backup, runs, approvals) on DATABASE_URL or through AFK_URL
//   node_modules/        what the server needs (traced by Next) plus the Prisma CLI for migrations
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const args = process.argv.slice(2);
const outArg = args.indexOf("--out");
const out = path.resolve(outArg >= 0 ? args[outArg + 1] : path.join(root, "dist", "afk-console"));
const t0 = Date.now();
const step = (what) => console.log(`bundle: ${what} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);

if (!args.includes("--no-build")) {
  const run = (cmd, a, env = {}) => {
    const r = spawnSync(cmd, a, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
    if (r.status !== 0) process.exit(r.status ?? 1);
  };
  run(process.execPath, ["scripts/agents.mjs"]);
  run(path.join(root, "node_modules", ".bin", "next"), ["build"], { AFK_STANDALONE: "1" });
  step("built");
}
const standalone = path.join(root, ".next", "standalone");
if (!existsSync(path.join(standalone, "server.js"))) {
  console.error("bundle: .next/standalone/server.js is missing: build with AFK_STANDALONE=1 (npm run bundle does)");
  process.exit(1);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// Next traces the server's files into .next/standalone; the static assets and public/ are served from
// beside it and are copied by hand (Next leaves that to the deployer).
cpSync(standalone, out, { recursive: true, verbatimSymlinks: false, dereference: true });
cpSync(path.join(root, ".next", "static"), path.join(out, ".next", "static"), { recursive: true });
if (existsSync(path.join(root, "public"))) cpSync(path.join(root, "public"), path.join(out, "public"), { recursive: true });
step("server copied");

// The worker, the seed and the CLI: one file each with the packages they use (Next bundles the server's
// packages into its chunks, so node_modules has few of them). Native and file-loading packages stay
// external and are copied below with the Prisma CLI's.
const esbuild = createRequire(import.meta.url)("esbuild");
const EXTERNAL = ["better-sqlite3", "@prisma/*", "pg", "pg-native", "next", "next/*"];
const serverOnly = {
  name: "server-only",
  setup(b) {
    b.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "empty" }));
    b.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "" }));
  },
};
for (const [entry, file] of [
  ["scripts/worker.ts", "worker.mjs"],
  ["scripts/seed.ts", "scripts/seed.mjs"],
  ["scripts/afk.ts", "scripts/afk.mjs"],
]) {
  await esbuild.build({
    entryPoints: [path.join(root, entry)],
    outfile: path.join(out, file),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: EXTERNAL,
    conditions: ["react-server"],
    // "server-only" throws unless resolved with the react-server condition, which a plain `node` lacks:
    // it marks server modules for Next's bundler and has nothing to contribute here.
    plugins: [serverOnly],
    logLevel: "warning",
    // Bundled ESM has no require; some packages' CommonJS shims ask for one.
    banner: { js: "import { createRequire as __afkRequire } from 'node:module'; const require = __afkRequire(import.meta.url);" },
  });
}
step("worker, seed and CLI compiled");

// Migrations: the Prisma CLI with its configs, schemas and migrations, and every package it loads; with
// them the packages the compiled scripts keep external.
for (const f of ["prisma.config.ts", "prisma.postgres.config.ts", "scripts/db.mjs"]) cpSync(path.join(root, f), path.join(out, f));
cpSync(path.join(root, "prisma"), path.join(out, "prisma"), { recursive: true });
const closure = new Set();
const walk = (name) => {
  if (closure.has(name)) return;
  const pj = path.join(root, "node_modules", name, "package.json");
  if (!existsSync(pj)) return; // an optional dependency for another platform
  closure.add(name);
  const p = JSON.parse(readFileSync(pj, "utf8"));
  for (const d of Object.keys({ ...p.dependencies, ...p.optionalDependencies })) walk(d);
};
for (const n of ["prisma", "@prisma/client", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "@prisma/driver-adapter-utils", "pg"])
  walk(n);
for (const n of closure)
  cpSync(path.join(root, "node_modules", n), path.join(out, "node_modules", n), { recursive: true, dereference: true });
step(`${closure.size} packages for migrations copied`);

// The standalone package.json keeps the repo's scripts, which name tools the bundle does not have.
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
writeFileSync(
  path.join(out, "package.json"),
  `${JSON.stringify(
    {
      name: pkg.name,
      version: pkg.version,
      private: true,
      type: "module",
      engines: pkg.engines,
      scripts: {
        // exec: npm's SIGTERM reaches the server or worker itself (sh does not pass it on).
        start: "exec node server.js",
        worker: "exec node worker.mjs",
        "db:deploy": "node scripts/db.mjs deploy",
        "db:setup": "node scripts/db.mjs setup",
        afk: "node scripts/afk.mjs",
      },
    },
    null,
    2,
  )}\n`,
);
const size = execFileSync("du", ["-sh", out], { encoding: "utf8" }).split("\t")[0];
step(`done: ${out} (${size})`);
