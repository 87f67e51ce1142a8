// Client-side calls to the console's own API (same-origin session cookie).
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

// revalidate: the browser keeps the answer and asks again with If-None-Match (the inbox answers 304 while
// nothing changed); otherwise nothing is cached.
export async function api<T>(path: string, init: { method?: string; body?: unknown; revalidate?: boolean } = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: init.body === undefined ? undefined : { "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    cache: init.revalidate ? "no-cache" : "no-store",
  });
  const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (!res.ok) throw new ApiError(res.status, String(data.error ?? `HTTP ${res.status}`), data.field);
  return data as T;
}
