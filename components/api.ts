// Client-side calls to the console: reads through its own API (same-origin session cookie), mutations
// through server actions. Both fail with the same ApiError (status, message, the wrong field), so a form
// shows a refusal the same way whichever way it came.
import type { ActionResult } from "@/lib/http";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
    /** A decision that lost a race: the approval as it stands now. */
    readonly current?: unknown,
  ) {
    super(message);
  }
}

/** A server action's answer as a mutation's result: its data, or its typed error thrown as an ApiError. */
export async function fromAction<T>(answer: Promise<ActionResult<T>>): Promise<T> {
  const r = await answer;
  if (!r.ok) throw new ApiError(r.status, r.error, r.field, r.current);
  return r.data;
}

// Reads only (mutations are server actions). revalidate: the browser keeps the answer and asks again with
// If-None-Match (the inbox answers 304 while nothing changed); otherwise nothing is cached.
export async function api<T>(path: string, init: { revalidate?: boolean } = {}): Promise<T> {
  const res = await fetch(path, { cache: init.revalidate ? "no-cache" : "no-store" });
  const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (!res.ok) throw new ApiError(res.status, String(data.error ?? `HTTP ${res.status}`), data.field, data.current);
  return data as T;
}
