// Small presentational pieces used across pages. Everything renders text; nothing sets inner HTML.

// Each state's colours: a utility in app/globals.css (badge-*), one class in every list row's badge.
const stateColors: Record<string, string> = {
  pending: "badge-pending",
  running: "badge-running",
  paused: "badge-paused",
  cancelling: "badge-ended",
  cancelled: "badge-ended",
  degraded: "badge-degraded",
  failed: "badge-failed",
  completed: "badge-done",
  approved: "badge-done",
  rejected: "badge-failed",
  expired: "badge-ended",
  responded: "badge-answered",
};

/** A state's chip; `label`: its words when they differ from the state's name (a question's "responded" is "answered"). */
export function StateBadge({ state, testId, label }: { state: string; testId?: string; label?: string }) {
  return (
    <span data-testid={testId} className={`badge ${stateColors[state] ?? stateColors.pending}`}>
      {label ?? state}
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
