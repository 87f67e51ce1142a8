import { existsSync } from "node:fs";
import { chromium, defineConfig } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://localhost:${PORT}`;
// A second server whose demo model takes 800 ms per call, as a real model takes seconds: the latency
// project follows runs through their in-between states on it.
const SLOW_PORT = PORT + 1;
const slowURL = `http://localhost:${SLOW_PORT}`;

function findChromium(): string {
  const candidates = [process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE, "/usr/bin/chromium", safe(() => chromium.executablePath())];
  const found = candidates.find((p): p is string => !!p && existsSync(p));
  if (!found) {
    throw new Error(
      "No Chromium for the e2e tests. Install one: Debian `apt-get install chromium`; elsewhere `npx playwright install chromium`; or set PLAYWRIGHT_CHROMIUM_EXECUTABLE.",
    );
  }
  return found;
}

function safe(f: () => string): string | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

// A local OpenAI-compatible streaming server (e2e/model-server.ts) for agents on "a team's own model".
const MODEL_PORT = PORT + 99;

const e2eEnv = {
  DATABASE_URL: process.env.E2E_DATABASE_URL ?? "file:./data/e2e.db",
  NEXTAUTH_URL: baseURL,
  AFK_DATA_DIR: "data",
  OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${MODEL_PORT}/v1`,
};

export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  projects: [
    { name: "console", testIgnore: /latency\//, use: { baseURL } },
    { name: "latency", testMatch: /latency\/.*\.spec\.ts/, use: { baseURL: slowURL } },
  ],
  use: {
    baseURL,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: findChromium(),
      args: [
        "--no-sandbox",
        "--headless",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  webServer: [
    {
      command: `node --import tsx e2e/model-server.ts ${MODEL_PORT}`,
      url: `http://127.0.0.1:${MODEL_PORT}/health`,
      timeout: 30_000,
      reuseExistingServer: false,
      stdout: "pipe",
    },
    {
      command: `node scripts/db.mjs reset && node_modules/.bin/next start -p ${PORT}`,
      url: `${baseURL}/api/health`,
      timeout: 120_000,
      reuseExistingServer: false,
      env: e2eEnv,
      stdout: "pipe",
    },
    {
      command: `node scripts/db.mjs reset && node_modules/.bin/next start -p ${SLOW_PORT}`,
      url: `${slowURL}/api/health`,
      timeout: 120_000,
      reuseExistingServer: false,
      env: { ...e2eEnv, DATABASE_URL: "file:./data/e2e-slow.db", NEXTAUTH_URL: slowURL, AFK_DEMO_LATENCY_MS: "800" },
      stdout: "pipe",
    },
  ],
});
