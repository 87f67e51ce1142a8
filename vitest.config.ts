import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // Tests run server code outside Next; the marker package must resolve as it does in a server bundle.
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      "server-only": path.resolve(import.meta.dirname, "node_modules/server-only/empty.js"),
    },
  },
  test: {
    include: ["tests/**/*.test.ts", "lib/**/*.test.ts"],
    globalSetup: ["tests/helpers/db-templates.ts"],
    env: { LOG_LEVEL: "warn" },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
  },
});
