// The CLI against a running console over its REST API (AFK_URL + AFK_TOKEN), as gh or temporal do: the
// server checks the token's role, audits the action under the token's user and dispatches the run.
import type { InboxDto, RunView } from "../dto.ts";
import { type Backend, CliError, type Query, pollUntilSettled } from "./backend.ts";

export function remoteBackend(baseUrl: string, token: string): Backend {
  const base = baseUrl.replace(/\/+$/, "");
  const enc = encodeURIComponent;
  async function call<T>(
    method: "GET" | "POST",
    path: string,
    opts: { body?: unknown; query?: Query; headers?: Record<string, string> } = {},
  ) {
    const qs = opts.query && Object.keys(opts.query).length ? `?${new URLSearchParams(opts.query)}` : "";
    let res: Response;
    try {
      res = await fetch(`${base}${path}${qs}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: "application/json",
          ...(opts.body === undefined ? {} : { "content-type": "application/json" }),
          ...opts.headers,
        },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(`Cannot reach ${base}: ${cause?.code ?? cause?.message ?? String(e)}`);
    }
    const text = await res.text();
    let data: Record<string, unknown> = {};
    try {
      data = text ? JSON.parse(text) : {};
    } catch {
      if (res.ok) throw new CliError(`${base} answered ${path} with something that is not JSON`, res.status);
    }
    if (!res.ok) {
      throw CliError.of(res.status, { ...data, error: String(data.error ?? `HTTP ${res.status}`) });
    }
    return data as T;
  }
  const show = (runId: string) => call<RunView>("GET", `/api/runs/${enc(runId)}`);
  return {
    describe: `token on ${base}`,
    executesHere: false,
    start: (agent, input, opts) =>
      call("POST", "/api/runs", { body: { agent, input }, headers: opts.idempotencyKey ? { "idempotency-key": opts.idempotencyKey } : {} }),
    runs: (query) => call("GET", "/api/runs", { query }),
    show,
    checkpoints: (runId, query) => call("GET", `/api/runs/${enc(runId)}/checkpoints`, { query }),
    inbox: (query) => call<InboxDto>("GET", "/api/approvals", { query }),
    decide: (approvalId, body) => call("POST", `/api/approvals/${enc(approvalId)}/decision`, { body }),
    resume: (runId) => call("POST", `/api/runs/${enc(runId)}/resume`),
    cancel: (runId) => call("POST", `/api/runs/${enc(runId)}/cancel`),
    retry: (runId) => call("POST", `/api/runs/${enc(runId)}/retry`),
    fork: (runId, seq) => call("POST", `/api/runs/${enc(runId)}/fork`, { body: { seq } }),
    wait: (runId, timeoutMs) => pollUntilSettled(() => show(runId), timeoutMs, 500),
    close: async () => undefined,
  };
}
