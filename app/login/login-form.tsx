"use client";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { useHydrated } from "@/components/use-hydrated";

type Props = { passwords: boolean; sso: { id: string; name: string } | null; initialError: string | null };

export function LoginForm({ passwords, sso, initialError }: Props) {
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);
  // Until React has hydrated, a submit would be the browser's own: the button waits for the script that signs in.
  const hydrated = useHydrated();

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setPending(true);
    setError(null);
    const form = new FormData(e.currentTarget);
    const res = await signIn("credentials", {
      email: String(form.get("email")),
      password: String(form.get("password")),
      redirect: false,
    });
    setPending(false);
    if (!res || res.error) {
      // The server's own messages (attempts left, the lock) are shown as they are; anything else in general terms.
      const ours = res?.error && /^(Wrong email or password|Too many)/.test(res.error);
      setError(ours ? res.error : "Wrong email or password.");
      return;
    }
    window.location.assign("/");
  }

  // The IdP's page signs the person in and sends them back to /api/auth/callback/oidc, then to "/".
  async function withIdp() {
    if (!sso) return;
    setPending(true);
    setError(null);
    await signIn(sso.id, { callbackUrl: "/" });
  }

  return (
    <div className="card space-y-4">
      {error && (
        <p data-testid="login-error" role="status" className="text-sm text-rose-700 dark:text-rose-400">
          {error}
        </p>
      )}
      {sso && (
        <button
          type="button"
          onClick={withIdp}
          disabled={pending || !hydrated}
          className={`${passwords ? "btn-secondary" : "btn-primary"} w-full justify-center`}
        >
          Sign in with {sso.name}
        </button>
      )}
      {sso && passwords && (
        <p className="text-center text-xs text-slate-500 dark:text-slate-400" aria-hidden="true">
          or with a password
        </p>
      )}
      {passwords && (
        <form method="post" onSubmit={onSubmit} className="space-y-4" aria-label="Sign in">
          <div>
            <label htmlFor="email" className="label">
              Email
            </label>
            <input id="email" name="email" type="email" autoComplete="username" required className="input mt-1" />
          </div>
          <div>
            <label htmlFor="password" className="label">
              Password
            </label>
            <input id="password" name="password" type="password" autoComplete="current-password" required className="input mt-1" />
          </div>
          <button type="submit" className="btn-primary w-full justify-center" disabled={pending || !hydrated}>
            {pending ? "Signing in…" : "Sign in"}
          </button>
        </form>
      )}
      <noscript>
        <p className="text-sm text-rose-700 dark:text-rose-400">Signing in needs JavaScript: turn it on for this site.</p>
      </noscript>
    </div>
  );
}
