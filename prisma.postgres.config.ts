// Prisma CLI config for PostgreSQL. DATABASE_URL must be a postgres:// URL when migrating; `generate` needs none.
process.env.DATABASE_URL ??= "postgresql://postgres@127.0.0.1:5432/afk";
import path from "node:path";
import { defineConfig } from "prisma/config";
import { postgresAdapter } from "./prisma/cli-support";

const url = process.env.DATABASE_URL;

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", "postgres"),
  migrations: { path: path.join("prisma", "postgres", "migrations") },
  adapter: async () => postgresAdapter(url),
});
