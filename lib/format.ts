// Display formatting shared by server and client components.
export const fmtTime = (v: string | number | Date | null | undefined) =>
  v == null ? "—" : `${new Date(v).toISOString().replace("T", " ").slice(0, 19)}Z`;

export function fmtDuration(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export const fmtCost = (usd: number | null | undefined) => (usd == null ? "—" : `$${usd.toFixed(usd < 0.01 ? 5 : 2)}`);

export const fmtJson = (v: unknown) => JSON.stringify(v, null, 2) ?? "undefined";
