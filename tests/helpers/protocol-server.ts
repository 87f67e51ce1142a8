// The runtime protocol's route handlers on a real HTTP port, for runtimes running in other processes (the
// adapters' tests), with the REST routes a reviewer and an admin use beside it (a run, a decision, a
// token): each request goes to the handler of its path template, as Next routes it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

type Handler = (r: Request, c: { params: Promise<unknown> }) => Promise<Response>;
const ROUTES: Record<string, () => Promise<Record<string, unknown>>> = {
  "/api/v1/runtime/runs": () => import("@/app/api/v1/runtime/runs/route"),
  "/api/v1/runtime/runs/{runId}": () => import("@/app/api/v1/runtime/runs/[runId]/route"),
  "/api/v1/runtime/runs/{runId}/interrupts": () => import("@/app/api/v1/runtime/runs/[runId]/interrupts/route"),
  "/api/v1/runtime/runs/{runId}/interrupts/{interruptId}/claim": () =>
    import("@/app/api/v1/runtime/runs/[runId]/interrupts/[interruptId]/claim/route"),
  "/api/v1/runtime/runs/{runId}/interrupts/{interruptId}/withdraw": () =>
    import("@/app/api/v1/runtime/runs/[runId]/interrupts/[interruptId]/withdraw/route"),
  "/api/v1/runtime/runs/{runId}/decisions": () => import("@/app/api/v1/runtime/runs/[runId]/decisions/route"),
  "/api/v1/runtime/runs/{runId}/decisions/stream": () => import("@/app/api/v1/runtime/runs/[runId]/decisions/stream/route"),
  "/api/v1/runtime/runs/{runId}/events": () => import("@/app/api/v1/runtime/runs/[runId]/events/route"),
  "/api/runs/{runId}": () => import("@/app/api/runs/[runId]/route"),
  "/api/approvals/{approvalId}/decision": () => import("@/app/api/approvals/[approvalId]/decision/route"),
  "/api/admin/tokens": () => import("@/app/api/admin/tokens/route"),
};

/** The answer of the handler of the request's path template, as Next routes it; null when no template matches. */
export async function routeOf(req: Request): Promise<Response | null> {
  const url = new URL(req.url);
  for (const [template, load] of Object.entries(ROUTES)) {
    const names: string[] = [];
    const re = new RegExp(
      `^${template.replace(/\{([^}]+)\}/g, (_m, n: string) => {
        names.push(n);
        return "([^/]+)";
      })}$`,
    );
    const m = re.exec(url.pathname);
    if (!m) continue;
    const handler = (await load())[req.method] as Handler | undefined;
    if (!handler) return new Response("method", { status: 405 });
    return handler(req, { params: Promise.resolve(Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])]))) });
  }
  return null;
}

export async function protocolServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const answer =
      (await routeOf(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body }))) ??
      new Response("not found", { status: 404 });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
