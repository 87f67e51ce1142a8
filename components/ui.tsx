// Small presentational pieces used across pages. Everything renders text; nothing sets inner HTML.
const stateColors: Record<string, string> = {
  pending: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200",
  running: "bg-sky-100 text-sky-800 dark:bg-sky-900 dark:text-sky-100",
  paused: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
  cancelling: "bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100",
  cancelled: "bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100",
  degraded: "bg-orange-100 text-orange-900 dark:bg-orange-900 dark:text-orange-100",
  failed: "bg-rose-100 text-rose-800 dark:bg-rose-900 dark:text-rose-100",
  completed: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100",
  approved: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100",
  rejected: "bg-rose-100 text-rose-800 dark:bg-rose-900 dark:text-rose-100",
  expired: "bg-slate-200 text-slate-800 dark:bg-slate-700 dark:text-slate-100",
  responded: "bg-sky-100 text-sky-900 dark:bg-sky-900 dark:text-sky-100",
};

export function StateBadge({ state, testId }: { state: string; testId?: string }) {
  return (
    <span data-testid={testId} className={`badge ${stateColors[state] ?? stateColors.pending}`}>
      {state}
    </span>
  );
}

export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    // A named region, so screen readers say what the block holds.
    <section aria-label={label ?? "JSON"}>
      <pre className="json-block">{JSON.stringify(value, null, 2)}</pre>
    </section>
  );
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <p className="card text-sm text-slate-600 dark:text-slate-400">{children}</p>;
}

export function ErrorBox({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div
      role="alert"
      className="rounded-lg border border-rose-300 bg-rose-50 p-4 text-sm text-rose-900 dark:border-rose-800 dark:bg-rose-950 dark:text-rose-100"
    >
      <p className="font-semibold">{title}</p>
      {children}
    </div>
  );
}

export function Field({ label, value, testId }: { label: string; value: React.ReactNode; testId?: string }) {
  return (
    <div>
      <dt className="field-label">{label}</dt>
      <dd data-testid={testId} className="text-sm">
        {value}
      </dd>
    </div>
  );
}
