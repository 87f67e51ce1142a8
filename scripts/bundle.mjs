#!/usr/bin/env node
// npm run bundle [-- --out <dir>] [--no-build]: a folder that runs the console with nothing else installed
// but Node 20 — what the image copies and what CI starts from a copy. Inside it:
//   scripts/start.mjs    the image's command: SQLite's migrations, then server.js in the same process
//   server.js            the web app (Next's standalone server: PORT, HOSTNAME; it runs runs itself unless AFK_WORKERS=0)
//   worker.mjs           the PostgreSQL worker (npm run worker)
//   scripts/db.mjs       migrate (+ seed): `node scripts/db.mjs deploy` or `setup`, the provider from DATABASE_URL
//   scripts/seed.mjs     the demo users and runs (db.mjs setup runs it; skip it in production with `deploy`)
//   scripts/afk.mjs      the CLI (users, tokens, backup, runs, approvals) on DATABASE_URL or through AFK_URL
//   node_modules/        what the server needs (traced by Next) plus the Prisma CLI for migrations
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { compileScripts } from "./bundle-compile.mjs";
import { checkoutSecrets, secretsIn } from "./bundle-secrets.mjs";

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

// The worker, the seed and the CLI, compiled (scripts/bundle-compile.mjs).
await compileScripts(root, out);
step("worker, seed and CLI compiled");

// Migrations: the Prisma CLI with its configs, schemas and migrations, and every package it loads; with
// them the packages the compiled scripts keep external.
for (const f of ["prisma.config.ts", "prisma.postgres.config.ts", "scripts/db.mjs", "scripts/start.mjs"])
  cpSync(path.join(root, f), path.join(out, f));
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
        start: "exec node scripts/start.mjs",
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
// Nothing secret leaves the build checkout (scripts/bundle-secrets.mjs): the folder is removed, not shipped.
const leaks = secretsIn(out, checkoutSecrets(root));
if (leaks.length) {
  rmSync(out, { recursive: true, force: true });
  console.error(`bundle: refused, the folder would ship secrets:\n  ${leaks.join("\n  ")}`);
  process.exit(1);
}
step("no secret in it");
const size = execFileSync("du", ["-sh", out], { encoding: "utf8" }).split("\t")[0];
step(`done: ${out} (${size})`);
