// Pages need a session; API routes answer 401/403 themselves (JSON, never a redirect).
import { withAuth } from "next-auth/middleware";
import { env } from "@/lib/env";

export const proxy = withAuth({ pages: { signIn: "/login" }, secret: env().NEXTAUTH_SECRET });

export const config = {
  matcher: ["/((?!login|api|_next/static|_next/image|favicon.ico|screenshots).*)"],
};
