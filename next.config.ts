import type { NextConfig } from "next";
import { API_CONTENT_SECURITY_POLICY, STATIC_HEADERS } from "./lib/security-headers";

const nextConfig: NextConfig = {
  // forbidden()/unauthorized() give pages real 403/401 responses.
  experimental: { authInterrupts: true },
  poweredByHeader: false,
  async headers() {
    const list = (h: Record<string, string>) => Object.entries(h).map(([key, value]) => ({ key, value }));
    return [
      { source: "/:path*", headers: list(STATIC_HEADERS) },
      { source: "/api/:path*", headers: list({ "Content-Security-Policy": API_CONTENT_SECURITY_POLICY }) },
    ];
  },
};

export default nextConfig;
