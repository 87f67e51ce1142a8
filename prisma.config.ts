// Prisma CLI config for the embedded SQLite database (the default). PostgreSQL: prisma.postgres.config.ts.
process.env.DATABASE_URL ??= "file:./data/afk.db";
import path from "node:path";
import { defineConfig } from "prisma/config";
import { sqliteAdapter } from "./prisma/cli-support";

const url = process.env.DATABASE_URL.startsWith("file:") ? process.env.DATABASE_URL : "file:./data/afk.db";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", "sqlite"),
  migrations: { path: path.join("prisma", "sqlite", "migrations") },
  adapter: async () => sqliteAdapter(url),
});
