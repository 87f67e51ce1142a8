import type { NextConfig } from "next";
import { STATIC_HEADERS } from "./lib/security-headers";

const nextConfig: NextConfig = {
  // forbidden()/unauthorized() give pages real 403/401 responses.
  experimental: { authInterrupts: true },
  poweredByHeader: false,
  async headers() {
    return [{ source: "/:path*", headers: Object.entries(STATIC_HEADERS).map(([key, value]) => ({ key, value })) }];
  },
};

export default nextConfig;
