import type { NextConfig } from "next";
import { API_CONTENT_SECURITY_POLICY, STATIC_HEADERS } from "./lib/security-headers";

const nextConfig: NextConfig = {
  // AFK_STANDALONE=1 (npm run bundle) also writes .next/standalone: the server with only the files it needs,
  // which scripts/bundle.mjs assembles into a folder that runs on its own (the image copies only that).
  output: process.env.AFK_STANDALONE === "1" ? "standalone" : undefined,
  // The tracer follows the app's file reads (the embedded secret, the SQLite file under data/): a build
  // checkout's own data and .env must never ride along into the standalone folder (scripts/bundle.mjs
  // refuses such files too).
  outputFileTracingExcludes: { "*": ["data/**", ".env", ".env.*", "**/.nextauth-secret"] },
  // npm test's build (AFK_TEST_BUILD=1): the suite type-checked the whole project (route types from `next
  // typegen` included) just before, so the build does not check the same files again (35 s on 2 cores); and
  // it keeps no compile cache, which a clean CI machine never reads (writing it took 11-16 s).
  typescript: { ignoreBuildErrors: process.env.AFK_TEST_BUILD === "1" },
  experimental: {
    // forbidden()/unauthorized() give pages real 403/401 responses.
    authInterrupts: true,
    ...(process.env.AFK_TEST_BUILD === "1" ? { turbopackFileSystemCacheForBuild: false } : {}),
  },
  poweredByHeader: false,
  // next dev serves its scripts and its HMR socket to localhost only; opened as http://127.0.0.1:3000 (as
  // NEXTAUTH_URL often says) the page then never hydrated, and its forms were the browser's own. The
  // loopback address is the same machine: no other site's page reaches it.
  allowedDevOrigins: ["127.0.0.1"],
  // Browsers ask for /favicon.ico on their own whenever a page has not (yet) named its icon, as a 404 in
  // next dev can stream it late: the same icon answers there instead of a 404 in the console.
  async rewrites() {
    return [{ source: "/favicon.ico", destination: "/favicon.svg" }];
  },
  // Tracing (lib/telemetry/sdk.ts) loads these from node_modules at run time, one copy shared with Next's
  // own spans, and only when an OTLP endpoint is set.
  serverExternalPackages: [
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace-node",
    "@opentelemetry/sdk-trace-base",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/resources",
  ],
  async headers() {
    const list = (h: Record<string, string>) => Object.entries(h).map(([key, value]) => ({ key, value }));
    return [
      { source: "/:path*", headers: list(STATIC_HEADERS) },
      { source: "/api/:path*", headers: list({ "Content-Security-Policy": API_CONTENT_SECURITY_POLICY }) },
      { source: "/scim/:path*", headers: list({ "Content-Security-Policy": API_CONTENT_SECURITY_POLICY }) },
    ];
  },
};

export default nextConfig;
