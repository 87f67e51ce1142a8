#!/usr/bin/env node
// Fails when the SQLite and PostgreSQL schemas disagree on models or fields, or when a provider's
// committed migrations do not produce its schema. PostgreSQL migrations are checked when a server is
// given (TEST_POSTGRES_URL or a postgres DATABASE_URL); the model comparison needs no server.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

export function modelsOf(dir) {
  const text = readdirSync(dir)
    .filter((f) => f.endsWith(".prisma") && f !== "datasource.prisma")
    .map((f) => readFileSync(path.join(dir, f), "utf8"))
    .join("\n");
  const models = {};
  for (const m of text.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    models[m[1]] = m[2]
      .split("\n")
      .map((l) => l.replace(/\/\/.*$/, "").trim())
      .filter((l) => l && !l.startsWith("@@"))
      .map((l) => l.split(/\s+/).slice(0, 2).join(" "))
      .sort();
  }
  return models;
}

export function diffModels(a, b) {
  const problems = [];
  for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!a[name] || !b[name]) problems.push(`model ${name} exists in only one schema`);
    else if (a[name].join("|") !== b[name].join("|")) problems.push(`model ${name} differs: sqlite [${a[name]}] vs postgres [${b[name]}]`);
  }
  return problems;
}

function migrationsMatch(provider, config, url) {
  const r = spawnSync(
    path.join(root, "node_modules", ".bin", "prisma"),
    [
      "migrate",
      "diff",
      "--from-migrations",
      `prisma/${provider}/migrations`,
      "--to-schema-datamodel",
      `prisma/${provider}`,
      "--exit-code",
      "--config",
      config,
    ],
    { cwd: root, encoding: "utf8", env: { ...process.env, DATABASE_URL: url } },
  );
  if (r.status === 0) return null;
  if (r.status === 2) return `${provider}: migrations drift from the schema; create a migration:\n${r.stdout}`;
  return `${provider}: migrate diff failed (exit ${r.status}): ${r.stderr || r.stdout}`;
}

function main() {
  const problems = diffModels(modelsOf(path.join(root, "prisma/sqlite")), modelsOf(path.join(root, "prisma/postgres")));
  const sqliteProblem = migrationsMatch("sqlite", "prisma.config.ts", "file:./data/schema-check.db");
  if (sqliteProblem) problems.push(sqliteProblem);
  const pgUrl = process.env.TEST_POSTGRES_URL ?? (/^postgres/.test(process.env.DATABASE_URL ?? "") ? process.env.DATABASE_URL : undefined);
  if (pgUrl) {
    const pgProblem = migrationsMatch("postgres", "prisma.postgres.config.ts", pgUrl);
    if (pgProblem) problems.push(pgProblem);
  } else console.log("schema-check: no PostgreSQL server given; PostgreSQL migrations not diffed");

  if (problems.length) {
    console.error(`schema-check failed:\n- ${problems.join("\n- ")}`);
    process.exit(1);
  }
  console.log(
    `schema-check: ${Object.keys(modelsOf(path.join(root, "prisma/sqlite"))).length} models identical; migrations match${pgUrl ? " (sqlite, postgres)" : " (sqlite)"}`,
  );
}

if (process.argv[1] === new URL(import.meta.url).pathname) main();
