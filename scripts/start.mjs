#!/usr/bin/env node
// The image's command (Dockerfile CMD): on SQLite, the database file's migrations first (one container
// owns the file: nothing else would run them), then the web server in this same process, so that it gets
// the container's signals itself. On PostgreSQL the migrate Job or service runs them (several instances
// start at once) and this only starts the server. Runs from the bundle (scripts/bundle.mjs).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const url = process.env.DATABASE_URL || "file:./data/afk.db";
if (!/^postgres(ql)?:\/\//.test(url)) {
  const r = spawnSync(process.execPath, [path.join(root, "scripts", "db.mjs"), "deploy"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
await import(pathToFileURL(path.join(root, "server.js")).href);
