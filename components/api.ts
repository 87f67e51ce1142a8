// Client-side calls to the console: reads through its own API (same-origin session cookie), mutations
// through server actions. Both fail with the same ApiError, built from the one error body lib/http.ts
// answers (status, message, the wrong field, an unreadable record's key, a lost decision's current state),
// so a form shows a refusal the same way whichever way it came.
import { type ErrorBody, errorText } from "@/lib/dto-shared";
import type { ActionResult } from "@/lib/http";

export class ApiError extends Error {
  readonly field?: string;
  readonly key?: string | null;
  /** A decision that lost a race: the approval as it stands now. */
  readonly current?: unknown;
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(errorText(body));
    this.field = body.field;
    this.key = body.key;
    this.current = body.current;
  }
}

/** A server action's answer as a mutation's result: its data, or its typed error thrown as an ApiError. */
export async function fromAction<T>(answer: Promise<ActionResult<T>>): Promise<T> {
  const r = await answer;
  if (r.ok) return r.data;
  const { ok: _ok, status, ...body } = r;
  throw new ApiError(status, body);
}

// Reads only (mutations are server actions). revalidate: the browser keeps the answer and asks again with
// If-None-Match (the inbox answers 304 while nothing changed); otherwise nothing is cached.
export async function api<T>(path: string, init: { revalidate?: boolean } = {}): Promise<T> {
  const res = await fetch(path, { cache: init.revalidate ? "no-cache" : "no-store" });
  const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (!res.ok) throw new ApiError(res.status, { ...data, error: String(data.error ?? `HTTP ${res.status}`) });
  return data as T;
}
