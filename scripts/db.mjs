#!/usr/bin/env node
// Database lifecycle for both providers. The provider is chosen from DATABASE_URL exactly as the app does
// (postgres:// or postgresql:// → PostgreSQL, anything else → the embedded SQLite file).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const bin = (name) => path.join(root, "node_modules", ".bin", name);
const DEFAULT_SQLITE = "file:./data/afk.db";

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  if (r.status !== 0) {
    console.error(`db: ${path.basename(cmd)} ${args.join(" ")} failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
}

// Empty counts as unset, as in lib/env.ts (compose's `${DATABASE_URL:-}`).
const url = process.env.DATABASE_URL || DEFAULT_SQLITE;
const isPg = /^postgres(ql)?:\/\//.test(url);
// Same rule as lib/env.ts, checked here too because migrations run before the app starts.
if (!/^file:.+/.test(url) && !(isPg && URL.canParse(url) && new URL(url).hostname)) {
  console.error("Invalid environment variable DATABASE_URL: must be file:<path> (SQLite) or postgres://user@host:port/db (PostgreSQL)");
  process.exit(1);
}
const config = isPg ? "prisma.postgres.config.ts" : "prisma.config.ts";
// Through node and the package's own entry, so it also runs in the bundle (scripts/bundle.mjs), which has
// no node_modules/.bin.
const prismaCli = path.join(root, "node_modules", "prisma", "build", "index.js");

function sqlitePath() {
  const p = url.replace(/^file:/, "").split("?")[0];
  return path.resolve(root, p);
}

// Prisma's own output for a deploy is misleading here: it warns that the datasource's url is unused (it
// must stay, see prisma.config.ts) and names prisma/migrations for the provider's folder. It is shown
// only when the deploy fails; a success is one line of ours.
function deploy() {
  if (!isPg) mkdirSync(path.dirname(sqlitePath()), { recursive: true });
  const r = spawnSync(process.execPath, [prismaCli, "migrate", "deploy", "--config", config], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: url },
  });
  if (r.status !== 0) {
    process.stdout.write(r.stdout ?? "");
    process.stderr.write(r.stderr ?? "");
    console.error(`db: migrate deploy failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
  const folder = `prisma/${isPg ? "postgres" : "sqlite"}/migrations`;
  const found = readdirSync(path.join(root, folder)).filter((d) => !d.endsWith(".toml")).length;
  const applied = (r.stdout.match(/└─ \d+_\w+\//g) ?? []).length;
  console.log(`db: ${found} migrations in ${folder}, ${applied ? `${applied} applied now` : "all applied already"}`);
}

function seed() {
  // In the bundle the seed is compiled (scripts/seed.mjs); in the repo tsx runs its source.
  const compiled = path.join(root, "scripts", "seed.mjs");
  if (existsSync(compiled)) run(process.execPath, [compiled], { DATABASE_URL: url });
  else run(bin("tsx"), ["--conditions=react-server", "scripts/seed.ts"], { DATABASE_URL: url });
}

const cmd = process.argv[2];
switch (cmd) {
  case "generate":
    if (!existsSync(bin("prisma"))) {
      console.error("db: prisma CLI not installed yet; run `npm install`");
      process.exit(existsSync(path.join(root, "node_modules", "prisma")) ? 1 : 0);
    }
    run(process.execPath, [prismaCli, "generate", "--config", "prisma.config.ts"]);
    run(process.execPath, [prismaCli, "generate", "--config", "prisma.postgres.config.ts"]);
    break;
  case "deploy":
    // Migrations only: what a production start or a migrate job runs (no demo users).
    deploy();
    break;
  case "setup":
    deploy();
    seed();
    break;
  case "reset":
    if (isPg) {
      console.error("db: reset refuses to drop a PostgreSQL database; drop it yourself");
      process.exit(1);
    }
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(sqlitePath() + suffix, { force: true });
    deploy();
    seed();
    break;
  case "check":
    run(process.execPath, [path.join(root, "scripts", "schema-check.mjs")]);
    break;
  default:
    console.error("usage: db.mjs generate|deploy|setup|reset|check");
    process.exit(2);
}
