// The composition root: what the console's services work with, built here and only here — once per
// process from the environment (appContext) or per test (createContext): the database, the runner's store
// on it, the agents, the dispatch path that runs them, the worker that executes them, the live bus and
// the queue. Nothing this file builds imports it back.
import "server-only";
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { McpServerConfig } from "./agents/mcp.ts";
import type { AgentRegistry } from "./agents/registry.ts";
import { type Db, db as processDb } from "./db/client.ts";
import { env } from "./env.ts";
import { Dispatcher } from "./execution/dispatch.ts";
import { RunProgress } from "./execution/progress.ts";
import { InProcessQueue, PgBossQueue, type RunQueue } from "./execution/queue.ts";
import { Worker } from "./execution/worker.ts";
import { LiveBus, PgLiveBus } from "./live/bus.ts";
import type { Agent, ModelAdapter, RunnerConfig } from "./runner/index.ts";
import { createRuntime, type Runtime } from "./runtime.ts";
import type { PrismaStore } from "./db/store.ts";
import type { WebhookConfig } from "./webhooks/pause.ts";
import { Notifier, type NotifierOptions } from "./notify/dispatcher.ts";
import type { Channel } from "./notify/channel.ts";
import { EmailChannel } from "./notify/email.ts";
import { slackChannel } from "./notify/slack/channel.ts";

export type AppContext = {
  readonly db: Db;
  readonly store: PrismaStore;
  readonly agents: AgentRegistry;
  /** The one dispatch path: every start, resume, retry, cancel, fork and takeover reserves and queues here. */
  readonly executor: Dispatcher;
  /** Live updates (run changes, streamed text, inbox, work, cancel) to this and every other instance. */
  readonly live: LiveBus;
  /** Executes what the queue hands this process (none on a web-only instance). */
  readonly worker: Worker;
  /** The runner on the store, with the models and agents; only the worker drives it. */
  readonly runtime: Runtime;
  /** PostgreSQL's job queue (null: runs execute in this process as soon as they are reserved). */
  readonly queue: PgBossQueue | null;
  /** Where pause and decision events are POSTed (null: nowhere). */
  readonly webhook: WebhookConfig | null;
  /** Email, Slack, … to the people who may decide (null: no channel configured). */
  readonly notifier: Notifier | null;
};

// heartbeatMs: how often leases are renewed (default a third of the lease; tests set it past the lease to
// play a worker that stalls).
export type ContextOptions = {
  config?: Partial<RunnerConfig>;
  models?: Record<string, ModelAdapter>;
  /** More agents beside the ones in agents/ (tests use agents whose tools count executions). */
  agents?: Record<string, Agent>;
  /** MCP servers of the agents in `agents`, by agent name. */
  mcp?: Record<string, McpServerConfig[]>;
  demoLatencyMs?: number;
  webhook?: WebhookConfig | null;
  leaseMs?: number;
  heartbeatMs?: number;
  /** PostgreSQL: runs go through pg-boss, `concurrency` of them at once in this process (0: web only). */
  queue?: { url: string; concurrency: number };
  /** Where live updates go (default: this process only). */
  live?: LiveBus;
  /** Notification channels and the dispatcher's settings (absent: no notifications). */
  notify?: { channels: Channel[] } & NotifierOptions;
};

export function createContext(db: Db, opts: ContextOptions = {}): AppContext {
  const instanceId = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  const leaseMs = opts.leaseMs ?? 15_000;
  const live = opts.live ?? new LiveBus();
  // The runtime reports its events to the worker, which exists only once the runtime does.
  let worker: Worker | null = null;
  const runtime = createRuntime(db, {
    config: { instanceId, ...opts.config },
    models: opts.models,
    agents: opts.agents,
    mcp: opts.mcp,
    demoLatencyMs: opts.demoLatencyMs,
    onEvent: (e) => worker?.onEvent(e),
  });
  const notifier = opts.notify?.channels.length ? new Notifier(db, runtime.store, runtime.agents, opts.notify.channels, opts.notify) : null;
  const progress = new RunProgress(db, live, opts.webhook ?? null, notifier);
  const w = new Worker(db, runtime, progress, live, { instanceId, leaseMs, heartbeatMs: opts.heartbeatMs });
  worker = w;
  const queue = opts.queue ? new PgBossQueue(opts.queue.url, opts.queue.concurrency, live) : null;
  const target: RunQueue = queue ?? new InProcessQueue(w);
  const executor = new Dispatcher(db, {
    store: runtime.store,
    agents: runtime.agents,
    queue: target,
    live,
    leaseMs,
    executesHere: (runId) => w.holds(runId),
    instanceId,
  });
  return {
    db,
    store: runtime.store,
    agents: runtime.agents,
    executor,
    live,
    worker: w,
    runtime,
    queue,
    webhook: opts.webhook ?? null,
    notifier,
  };
}

const g = globalThis as unknown as { afkContext?: AppContext };

/**
 * The process's context. SQLite (one instance): runs execute in this process. PostgreSQL (several
 * instances): runs go through the pg-boss queue, worked by every instance with AFK_WORKERS > 0 and by
 * `npm run worker` processes.
 */
export function appContext(): AppContext {
  if (!g.afkContext) {
    const e = env();
    const pgUrl = e.databaseProvider === "postgresql" ? e.DATABASE_URL : null;
    g.afkContext = createContext(processDb(), {
      webhook:
        e.AFK_WEBHOOK_URL && e.AFK_WEBHOOK_SECRET
          ? { url: e.AFK_WEBHOOK_URL, secret: e.AFK_WEBHOOK_SECRET, baseUrl: e.NEXTAUTH_URL ?? "http://localhost:3000" }
          : null,
      leaseMs: e.AFK_LEASE_S * 1000,
      queue: pgUrl ? { url: pgUrl, concurrency: e.AFK_WORKERS } : undefined,
      // SQLite has one instance: in-process delivery is all there is to do.
      live: pgUrl ? new PgLiveBus(pgUrl) : undefined,
      notify: notifyFromEnv(e),
    });
  }
  return g.afkContext;
}

// The channels the environment configures: email with AFK_SMTP_URL, Slack direct messages with its bot token.
function notifyFromEnv(e: ReturnType<typeof env>): ContextOptions["notify"] {
  const channels: Channel[] = [];
  if (e.AFK_SMTP_URL) channels.push(new EmailChannel({ url: e.AFK_SMTP_URL, from: e.AFK_MAIL_FROM }));
  const slack = slackChannel();
  if (slack) channels.push(slack);
  if (!channels.length) return undefined;
  return {
    channels,
    baseUrl: e.NEXTAUTH_URL ?? "http://localhost:3000",
    pollMs: e.AFK_NOTIFY_POLL_MS,
    burstMs: e.AFK_NOTIFY_BURST_S * 1000,
  };
}
