import path from "node:path";
import { defineConfig } from "vitest/config";
import { LongestFirst } from "./tests/helpers/sequencer";

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
    // The longest files start first (tests/helpers/sequencer.ts), so no worker is left alone at the end.
    sequence: { sequencer: LongestFirst },
  },
});
