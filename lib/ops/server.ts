// The operational endpoints, answered alike by the app's routes (/api/health/live, /api/health/ready,
// /api/metrics) and by a process's own small HTTP port (AFK_OPS_PORT: /livez, /readyz, /metrics), which is
// how a worker process (no Next.js server) is probed and scraped, and how a web instance can be scraped
// on a port that is not public.
import "server-only";
import { createServer, type Server } from "node:http";
import type { AppContext } from "../context.ts";
import { log } from "../log.ts";
import { METRICS_CONTENT_TYPE } from "../metrics.ts";
import { liveness, readiness } from "./probes.ts";
import { metricsAccess, scrapeMetrics } from "./scrape.ts";

export type OpsAnswer = { status: number; contentType: string; body: string; headers?: Record<string, string> };

type Ctx = Pick<AppContext, "db" | "queue" | "worker">;
type Provider = "sqlite" | "postgresql";

const json = (status: number, body: unknown): OpsAnswer => ({ status, contentType: "application/json", body: JSON.stringify(body) });

export const liveAnswer = (): OpsAnswer => json(200, liveness());

export async function readyAnswer(ctx: Ctx, provider: Provider): Promise<OpsAnswer> {
  const r = await readiness(ctx.db, provider);
  return json(r.ready ? 200 : 503, r);
}

/** token: AFK_METRICS_TOKEN. required: whether a scrape without it is refused (the app's route) or allowed (an ops port, private by where it listens). */
export async function metricsAnswer(
  ctx: Ctx,
  provider: Provider,
  authorization: string | null | undefined,
  token: string | undefined,
  required: boolean,
): Promise<OpsAnswer> {
  const access = metricsAccess(authorization, token);
  if (access === "off" && required)
    return json(404, { error: "Metrics are off here: set AFK_METRICS_TOKEN (then scrape with it as a bearer token) or AFK_OPS_PORT" });
  if (access === "denied")
    return {
      ...json(401, { error: "A metrics scrape needs Authorization: Bearer <AFK_METRICS_TOKEN>" }),
      headers: { "www-authenticate": "Bearer" },
    };
  return { status: 200, contentType: METRICS_CONTENT_TYPE, body: await scrapeMetrics(ctx, provider) };
}

/** What the port serves (the Kustomize base's worker probes are checked against it). */
export const OPS_PATHS = ["/livez", "/readyz", "/metrics"] as const;

export type OpsServerOptions = { port: number; host: string; token: string | undefined; provider: Provider };

/** Listens on host:port; resolves once listening (port 0: any free port, see the server's address()). */
export function startOpsServer(ctx: Ctx, opts: OpsServerOptions): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://ops");
    const answer = async (): Promise<OpsAnswer> => {
      if (req.method !== "GET" && req.method !== "HEAD") return json(405, { error: "GET only" });
      switch (url.pathname) {
        case "/livez":
          return liveAnswer();
        case "/readyz":
          return readyAnswer(ctx, opts.provider);
        case "/metrics":
          return metricsAnswer(ctx, opts.provider, req.headers.authorization, opts.token, false);
        default:
          return json(404, { error: `Not found: ${OPS_PATHS.join(", ")}` });
      }
    };
    answer().then(
      (a) => {
        res.writeHead(a.status, { "content-type": a.contentType, "cache-control": "no-store", ...a.headers });
        res.end(req.method === "HEAD" ? undefined : a.body);
      },
      (e) => {
        log.error("ops endpoint failed", { path: url.pathname, error: String(e) });
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "Internal error" }));
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      // The port never keeps a process alive by itself: a worker lives for its queue, a web instance for Next.
      server.unref();
      resolve(server);
    });
  });
}
