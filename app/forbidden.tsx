export default function Forbidden() {
  return (
    <div className="card max-w-lg">
      <h1 className="text-lg font-semibold">403 — not allowed</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">Your role may not open this page.</p>
    </div>
  );
}
