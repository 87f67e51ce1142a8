// The process's Prometheus metrics: one registry and every instrument, defined here and only here. Events
// are counted where they happen (the worker, the decision service, the sweep, the store's writes) through
// the functions below; what is a state of the database rather than an event (runs by state, pending
// approvals and the oldest one's age, queue jobs) is read at scrape time (lib/ops/scrape.ts). No label
// takes a run, user or approval id: agents, tools, models, states and outcomes are all bounded sets.
import client from "prom-client";
import pkg from "../package.json" with { type: "json" };

// Seconds to a week: a run, or a wait for a human, can take days.
const LONG_SECONDS = [1, 5, 15, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 86_400, 3 * 86_400, 7 * 86_400];
// The GenAI semantic conventions' advised buckets (gen_ai.client.operation.duration, .token.usage).
const GEN_AI_SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const GEN_AI_TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864];
const SHORT_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function build() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const r = [registry];
  return {
    registry,
    buildInfo: new client.Gauge({
      name: "afk_build_info",
      help: "1, labelled with the version, the Node.js version and the database provider",
      labelNames: ["version", "node", "database"],
      registers: r,
    }),
    runsFinished: new client.Counter({
      name: "afk_runs_finished_total",
      help: "Runs that ended on this process, by agent and outcome (completed, failed, cancelled)",
      labelNames: ["agent", "outcome"],
      registers: r,
    }),
    runDuration: new client.Histogram({
      name: "afk_run_duration_seconds",
      help: "From a run's start to its end, waits for humans included",
      labelNames: ["agent", "outcome"],
      buckets: LONG_SECONDS,
      registers: r,
    }),
    runs: new client.Gauge({
      name: "afk_runs",
      help: "Runs in the database by state (read at scrape)",
      labelNames: ["state"],
      registers: r,
    }),
    databaseUp: new client.Gauge({
      name: "afk_metrics_database_up",
      help: "1 when this scrape's database reads answered (0: the gauges read from the database are missing)",
      registers: r,
    }),
    activeRuns: new client.Gauge({ name: "afk_active_runs", help: "Runs this process executes now", registers: r }),
    approvalsRequested: new client.Counter({
      name: "afk_approvals_requested_total",
      help: "Requests for a human's decision made by runs on this process, by agent, tool and kind",
      labelNames: ["agent", "tool", "kind"],
      registers: r,
    }),
    approvalsDecided: new client.Counter({
      name: "afk_approvals_decided_total",
      help: "Requests closed by a reviewer or by their deadline on this process, by agent, tool and outcome",
      labelNames: ["agent", "tool", "decision"],
      registers: r,
    }),
    approvalWait: new client.Histogram({
      name: "afk_approval_wait_seconds",
      help: "From a request for a decision to its outcome",
      labelNames: ["agent", "tool", "decision"],
      buckets: LONG_SECONDS,
      registers: r,
    }),
    approvalsPending: new client.Gauge({
      name: "afk_approvals_pending",
      help: "Requests waiting for a human (read at scrape)",
      registers: r,
    }),
    oldestPending: new client.Gauge({
      name: "afk_approval_oldest_pending_age_seconds",
      help: "How long the oldest waiting request has waited; 0 when none waits (read at scrape)",
      registers: r,
    }),
    queueJobs: new client.Gauge({
      name: "afk_queue_jobs",
      help: "Jobs of the run queue by pg-boss state (PostgreSQL; read at scrape)",
      labelNames: ["state"],
      registers: r,
    }),
    scheduleToStart: new client.Histogram({
      name: "afk_queue_schedule_to_start_seconds",
      help: "From a run's job being queued to a worker taking it (PostgreSQL)",
      buckets: SHORT_SECONDS.concat([30, 60, 300]),
      registers: r,
    }),
    genAiDuration: new client.Histogram({
      name: "gen_ai_client_operation_duration_seconds",
      help: "GenAI operation duration (a model call, retries and fallbacks included)",
      labelNames: ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "error_type"],
      buckets: GEN_AI_SECONDS,
      registers: r,
    }),
    genAiTokens: new client.Histogram({
      name: "gen_ai_client_token_usage",
      help: "Tokens used by a GenAI operation, by token type (input, output)",
      labelNames: ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "gen_ai_token_type"],
      buckets: GEN_AI_TOKENS,
      registers: r,
    }),
    toolDuration: new client.Histogram({
      name: "afk_tool_duration_seconds",
      help: "A tool's execution (replayed results not counted), by tool and outcome (ok, error)",
      labelNames: ["tool", "outcome"],
      buckets: SHORT_SECONDS.concat([30, 60, 300]),
      registers: r,
    }),
    notifyFirst: new client.Histogram({
      name: "afk_notification_first_seconds",
      help: "From a request for a decision to its first notification sent (any channel), by agent and tool",
      labelNames: ["agent", "tool"],
      buckets: SHORT_SECONDS.concat([30, 60, 300, 900, 3600]),
      registers: r,
    }),
    notifications: new client.Counter({
      name: "afk_notifications_total",
      help: "Notification messages by channel, kind (request, digest, reminder, escalation) and outcome (sent, retry, failed)",
      labelNames: ["channel", "kind", "outcome"],
      registers: r,
    }),
    checkpointWrite: new client.Histogram({
      name: "afk_checkpoint_write_seconds",
      help: "One write of the runner's records to the database (a write-behind batch, one statement)",
      buckets: SHORT_SECONDS,
      registers: r,
    }),
  };
}

export type Metrics = ReturnType<typeof build>;

// On globalThis, like the database client: Next's server bundles hold more than one copy of a module, and
// every copy must count into the one registry a scrape reads.
const g = globalThis as unknown as { afkMetrics?: Metrics };

export function metrics(): Metrics {
  g.afkMetrics ??= build();
  return g.afkMetrics;
}

export const METRICS_CONTENT_TYPE = client.register.contentType;

/** The registry as Prometheus text. */
export async function renderMetrics(database: string): Promise<string> {
  const m = metrics();
  m.buildInfo.reset();
  m.buildInfo.set({ version: pkg.version, node: process.version, database }, 1);
  // prom-client writes a NaN as "Nan", which the format does not spell that way; its only NaN are the
  // event-loop lag gauges when no delay was sampled since the last scrape. Such a sample is left out.
  return (await m.registry.metrics()).replace(/^[^#\n][^\n]* Nan\n/gm, "");
}

// ---- What the owners of the events call ----

export type ApprovalLabels = { agent_name: string; tool_name: string; kind: string };
export type ClosedApproval = {
  agent_name: string;
  tool_name: string;
  status: string;
  requested_at_ms: number;
  decided_at_ms: number | null;
};

/** A request for a human's decision was stored (once per request). */
export function approvalRequested(rec: ApprovalLabels) {
  metrics().approvalsRequested.inc({ agent: rec.agent_name, tool: rec.tool_name, kind: rec.kind });
}

/** A request left `pending` (a reviewer's decision, a deadline): counted once, with how long it waited. */
export function approvalClosed(rec: ClosedApproval) {
  const m = metrics();
  const labels = { agent: rec.agent_name, tool: rec.tool_name, decision: rec.status };
  m.approvalsDecided.inc(labels);
  if (rec.decided_at_ms !== null) m.approvalWait.observe(labels, Math.max(0, rec.decided_at_ms - rec.requested_at_ms) / 1000);
}

export function runFinished(agent: string, outcome: string, startedAt: Date) {
  const m = metrics();
  m.runsFinished.inc({ agent, outcome });
  m.runDuration.observe({ agent, outcome }, Math.max(0, Date.now() - startedAt.getTime()) / 1000);
}

/** Times one write and observes it, whether it succeeded or not. */
export async function timedCheckpointWrite<T>(write: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await write();
  } finally {
    metrics().checkpointWrite.observe((performance.now() - started) / 1000);
  }
}

/** A request's first notification went out (time to decision is afk_approval_wait_seconds). */
export function notificationFirst(agent: string, tool: string, seconds: number) {
  metrics().notifyFirst.observe({ agent, tool }, Math.max(0, seconds));
}

export function notificationSent(channel: string, kind: string, outcome: "sent" | "retry" | "failed") {
  metrics().notifications.inc({ channel, kind, outcome });
}
