import { LoginForm } from "./login-form";

export default function LoginPage() {
  return (
    <div className="mx-auto mt-16 max-w-sm">
      <h1 className="mb-1 text-2xl font-semibold tracking-tight">Sign in to AFK Console</h1>
      <p className="mb-6 text-sm text-slate-600 dark:text-slate-400">Approve, reject and inspect your agents&apos; runs.</p>
      <LoginForm />
    </div>
  );
}
