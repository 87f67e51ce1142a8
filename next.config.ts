import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // forbidden()/unauthorized() give pages real 403/401 responses.
  experimental: { authInterrupts: true },
  poweredByHeader: false,
};

export default nextConfig;
