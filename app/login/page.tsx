import type { Metadata } from "next";
import { signInMethods } from "@/lib/auth/options";
import { SSO_REFUSALS } from "@/lib/auth/sso";
import { LoginForm } from "./login-form";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Sign in" };

// next-auth sends sign-in errors here as ?error=<code>: a refusal of ours names why, anything else from
// the IdP round trip (OAuthSignin, OAuthCallback, AccessDenied …) is said in general terms.
function errorText(code: string | undefined, idp: string | null): string | null {
  if (!code) return null;
  if (Object.hasOwn(SSO_REFUSALS, code)) return SSO_REFUSALS[code as keyof typeof SSO_REFUSALS];
  if (code === "SessionRequired") return null;
  return idp ? `Signing in with ${idp} did not work. Try again, or ask your administrator.` : "Signing in did not work. Try again.";
}

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { error } = await searchParams;
  const methods = signInMethods();
  return (
    <div className="mx-auto mt-16 max-w-sm">
      <h1 className="mb-1 text-2xl font-semibold tracking-tight">Sign in to AFK Console</h1>
      <p className="mb-6 text-sm text-slate-600 dark:text-slate-400">Approve, reject and inspect your agents&apos; runs.</p>
      <LoginForm
        passwords={methods.passwords}
        sso={methods.sso}
        initialError={errorText(typeof error === "string" ? error : undefined, methods.sso?.name ?? null)}
      />
    </div>
  );
}
