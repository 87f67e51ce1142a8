import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, defineConfig } from "@playwright/test";
import { ssoEnv } from "./e2e/sso/config";

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

// A real OpenID Connect provider (e2e/idp.ts). The console's server offers it beside passwords; a third
// server signs people in only through it (AFK_PASSWORD_SIGNIN=off): the sso project runs against that one.
const IDP_PORT = PORT + 98;
const idpURL = `http://localhost:${IDP_PORT}`;
const SSO_PORT = PORT + 2;
const ssoURL = `http://localhost:${SSO_PORT}`;

// npm test runs the projects that start servers of their own (dev, visual, notify) in a second Playwright beside
// the first, on ports 50 above (scripts/test.mjs): E2E_LANE=own-servers starts only the model server and
// keeps its results apart (each Playwright empties its output folder when it starts).
const OWN_SERVERS = process.env.E2E_LANE === "own-servers";

const e2eEnv = {
  DATABASE_URL: process.env.E2E_DATABASE_URL ?? "file:./data/e2e.db",
  NEXTAUTH_URL: baseURL,
  AFK_DATA_DIR: "data",
  OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${MODEL_PORT}/v1`,
  ...ssoEnv(idpURL),
  // /api/metrics is off without a token; the OpenAPI spec scrapes it with this one.
  AFK_METRICS_TOKEN: "e2e-metrics-token-0123456789",
};

// A production server of the console on a fresh database (reset before it starts). Its idle keep-alive
// sockets live 75 s, not Node's 5: the tests' request contexts keep sockets across the pauses between their
// calls, and one sent as the server closed it at 5 s idle was an ECONNRESET (as behind any proxy whose
// idle timeout is longer than the server's).
function consoleServer(port: number, url: string, env: Record<string, string>) {
  return {
    command: `node scripts/db.mjs reset && node_modules/.bin/next start -p ${port} --keepAliveTimeout 75000`,
    url: `${url}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    env,
    stdout: "pipe" as const,
  };
}

export default defineConfig({
  testDir: "e2e",
  outputDir: OWN_SERVERS ? "test-results-own-servers" : "test-results",
  // A test's whole time, not a speed check (benchmarks measure speed): the longest flows sign three people in
  // and take README screenshots, 27 s on a quiet machine and past 60 s in CI, where the two lanes share two
  // cores. Each step still waits only as long as its own expect allows.
  timeout: 120_000,
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  projects: [
    { name: "console", testIgnore: /(latency|sso|dev|visual|notify)\//, use: { baseURL } },
    { name: "latency", testMatch: /latency\/.*\.spec\.ts/, use: { baseURL: slowURL } },
    { name: "sso", testMatch: /sso\/.*\.spec\.ts/, use: { baseURL: ssoURL } },
    // next dev on port E2E_PORT + 5, started by the spec itself (e2e/dev/dev-server.ts). Its traces are
    // written outside the project: next dev watches the project's files and reloads the page it walks.
    { name: "dev", testMatch: /dev\/.*\.spec\.ts/, outputDir: path.join(os.tmpdir(), "afk-e2e-dev-results") },
    // Screenshots of every page against committed baselines, on a production server of its own (port
    // E2E_PORT + 6, a fresh database) started by the spec: e2e/visual/.
    {
      name: "visual",
      testMatch: /visual\/.*\.spec\.ts/,
      expect: { toHaveScreenshot: { maxDiffPixelRatio: 0.01, animations: "disabled", caret: "hide" } },
    },
    // Email and Slack from outside: a production server of its own (port E2E_PORT + 7, a fresh database)
    // pointed at an SMTP server and a Slack wire-format server in the test process, SIGKILLed once: e2e/notify/.
    { name: "notify", testMatch: /notify\/.*\.spec\.ts/ },
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
    // The IdP and the three production servers the console, latency and sso projects run against.
    ...(OWN_SERVERS
      ? []
      : [
          {
            command: `node --import tsx e2e/idp.ts ${IDP_PORT} ${baseURL} ${ssoURL}`,
            url: `${idpURL}/health`,
            timeout: 30_000,
            reuseExistingServer: false,
            stdout: "pipe" as const,
          },
          consoleServer(PORT, baseURL, e2eEnv),
          consoleServer(SLOW_PORT, slowURL, {
            ...e2eEnv,
            DATABASE_URL: "file:./data/e2e-slow.db",
            NEXTAUTH_URL: slowURL,
            AFK_DEMO_LATENCY_MS: "800",
          }),
          consoleServer(SSO_PORT, ssoURL, {
            ...e2eEnv,
            DATABASE_URL: "file:./data/e2e-sso.db",
            NEXTAUTH_URL: ssoURL,
            AFK_PASSWORD_SIGNIN: "off",
          }),
        ]),
  ],
});
