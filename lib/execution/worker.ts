// The worker: claims a reserved run, executes it from its latest checkpoint (or from the start) until it
// pauses or ends, and records the outcome on its Run row. It executes only what a queue hands it (see
// dispatch.ts): pg-boss's loops on PostgreSQL, at most `concurrency` at once, or the in-process queue
// with SQLite. While a run executes here its lease is renewed (leases.ts) and its progress reported
// (progress.ts); a worker that loses its lease stops without writing anything more.
import "server-only";
import type { Context } from "@opentelemetry/api";
import { z } from "zod";
import type { Db } from "../db/client.ts";
import { log } from "../log.ts";
import type { LiveBus } from "../live/bus.ts";
import type { Runtime } from "../runtime.ts";
import {
  type Agent,
  AgentCheckpointCorruptionError,
  type AgentResult,
  isTerminal,
  LeaseLostError,
  listApprovals,
  type RunEvent,
  type RunHandle,
  readLatestCheckpoint,
  RUN,
} from "../runner/index.ts";
import { claimReserved, finishRunRow, getRunRow } from "../db/runs.ts";
import { inputMessage } from "../display.ts";
import { runFinished } from "../metrics.ts";
import { Heartbeat, type Lease } from "./leases.ts";
import { newProgress, type ProgressState, type RunProgress } from "./progress.ts";
import { RunMetrics } from "./run-metrics.ts";
import { traceAgent } from "../telemetry/genai.ts";
import { type JobTrace, parseRunTraceLinks } from "../telemetry/propagation.ts";
import { tracingOn } from "../telemetry/sdk.ts";
import { RunSegments } from "../telemetry/segments.ts";

/** A run this process executes: one record from its claim until its outcome is recorded. */
type Held = Lease & {
  /** The runner's handle once opened (null while its latest checkpoint is read). */
  handle: RunHandle | null;
  /** Settles when the run has stopped here and its row says how (or it was abandoned). */
  task: Promise<void>;
  progress: ProgressState;
  /** The run's agent and start (its outcome is counted by agent, its duration from its start). */
  agentName: string;
  createdAt: Date;
};

export type WorkerOptions = { instanceId: string; leaseMs: number; heartbeatMs?: number };

export class Worker {
  readonly instanceId: string;
  // Every run executing here, by id: at most one record per run (a newer claim waits for the older one).
  private readonly runs = new Map<string, Held>();
  // Jobs not yet settled (either queue), from before their claim: idle() waits for them too.
  private readonly jobs = new Set<Promise<unknown>>();
  private readonly heartbeat: Heartbeat<Held>;
  private readonly leaseMs: number;
  private readonly metrics = new RunMetrics();
  // Traces: each segment's invoke_agent span (null when tracing is off).
  private readonly segments = tracingOn() ? new RunSegments() : null;

  constructor(
    private readonly db: Db,
    private readonly runtime: Runtime,
    private readonly progress: RunProgress,
    live: LiveBus,
    opts: WorkerOptions,
  ) {
    this.instanceId = opts.instanceId;
    this.leaseMs = opts.leaseMs;
    this.heartbeat = new Heartbeat(
      db,
      this.instanceId,
      this.leaseMs,
      opts.heartbeatMs ?? Math.max(200, Math.floor(this.leaseMs / 3)),
      () => this.runs.values(),
      { lost: (r) => this.abandon(r), cancelRequested: (r) => r.handle?.cancel() },
    );
    // A cancel asked on any instance stops the run at once if it executes here.
    live.subscribe((m) => {
      if (m.topic === "cancel") this.runs.get(m.runId)?.handle?.cancel();
    });
  }

  activeCount() {
    return this.runs.size;
  }

  holds(runId: string) {
    return this.runs.has(runId);
  }

  /** A queue's job: claim the reserved run and execute it; settles when it has paused or ended here. */
  async runJob(runId: string, trace?: JobTrace): Promise<void> {
    // Tracked from before the claim: a shutdown that begins between the claim and the run's start still
    // waits for it and hands it back (the run is not in `runs` until it is spawned).
    const job = this.execute(runId, trace).then((held) => held?.task);
    this.jobs.add(job);
    try {
      await job;
    } finally {
      this.jobs.delete(job);
    }
  }

  /** The in-process queue's job (SQLite, tests): runJob without waiting for it; settles when the job has. */
  take(runId: string, trace?: JobTrace): Promise<void> {
    const job = this.runJob(runId, trace).catch((e) => log.error("could not execute run", { run_id: runId, error: String(e) }));
    this.jobs.add(job);
    return job.finally(() => this.jobs.delete(job));
  }

  /** The runner's event sink: progress of the runs executing here (subagent runs have no Run row). */
  onEvent(e: RunEvent) {
    this.metrics.event(e);
    if (e.type === "checkpoint") log.debug("checkpoint", { run_id: e.runId, phase: e.data.phase, step: e.step });
    const held = this.runs.get(e.runId);
    if (held) this.progress.event(held, e);
    this.segments?.event(e);
  }

  // Claims the reserved run and starts executing it; null when it was not reserved (someone else claimed it).
  private async execute(runId: string, trace?: JobTrace): Promise<Held | null> {
    const epoch = await claimReserved(this.db, runId, this.instanceId, this.leaseMs);
    if (epoch === null) return null;
    // An older execution of this run here lost its claim to this one: it stops before this one starts.
    const older = this.runs.get(runId);
    if (older) {
      this.abandon(older);
      await older.task;
    }
    const run = await getRunRow(this.db, runId);
    if (!run) return null;
    log.info("run executing", { run_id: runId, epoch, step: run.step, instance: this.instanceId });
    const agent = this.runtime.agent(run.agentName);
    // Every write of this execution is conditional on this claim (see PrismaStore.fenced).
    const store = this.runtime.store.fenced({ runId, epoch });
    const segment = this.segments && (await this.beginSegment(this.segments, run, epoch, trace));
    return this.spawn(runId, epoch, run, segment, async () => {
      // Its MCP servers' tools, before the agent's shape is checked against the run's.
      await this.runtime.agents.prepare(agent);
      const a = traceAgent(agent);
      let h: RunHandle;
      if (await readLatestCheckpoint(store, run.threadId, runId))
        h = await this.runtime.runner.resumeHandle(a, { runId, threadId: run.threadId, store });
      else {
        const input = JSON.parse(run.input) as Record<string, unknown>;
        h = this.runtime.runner.runHandle(a, {
          runId,
          threadId: run.threadId,
          store,
          userMessage: agent.toUserMessage ? agent.toUserMessage(input) : inputMessageOf(agent, input),
          context: { input, submitted_by: run.submittedByEmail },
        });
      }
      if (run.cancelRequested) h.cancel();
      return h;
    });
  }

  // The segment's span, with the decisions made since the run paused (when it did) as its events.
  private async beginSegment(
    segments: RunSegments,
    run: NonNullable<Awaited<ReturnType<typeof getRunRow>>>,
    epoch: number,
    job?: JobTrace,
  ) {
    const paused = !!parseRunTraceLinks(run.traceContext).segment;
    const decided = paused
      ? (await listApprovals(this.runtime.store, run.threadId, run.id).catch(() => [])).filter(
          (a) => a.step === run.step && a.decided_at_ms !== null,
        )
      : [];
    return segments.begin({
      runId: run.id,
      threadId: run.threadId,
      agent: run.agentName,
      epoch,
      instanceId: this.instanceId,
      job,
      links: run.traceContext,
      decided,
    });
  }

  // Resolves when every run claimed here has stopped (for tests, benchmarks and shutdown).
  async idle(): Promise<void> {
    while (this.runs.size || this.jobs.size) await Promise.allSettled([...[...this.runs.values()].map((r) => r.task), ...this.jobs]);
  }

  // Graceful shutdown: wait up to timeoutMs for runs to pause or end; hand the rest back (their leases
  // expire now, so another instance takes them over from their latest checkpoint at once).
  async shutdown(timeoutMs = 20_000): Promise<void> {
    const done = await Promise.race([this.idle().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs))]);
    if (!done) await this.heartbeat.handBack(this.runs.keys());
    this.heartbeat.stop();
  }

  // Lost the lease (another worker took the run over): stop without writing anything more.
  private abandon(held: Held) {
    held.leased = false;
    held.handle?.abandon();
  }

  // segment: the trace context the run executes in (null when tracing is off).
  private spawn(
    runId: string,
    epoch: number,
    run: { agentName: string; createdAt: Date },
    segment: Context | null,
    open: () => Promise<RunHandle>,
  ): Held {
    const held: Held = {
      runId,
      epoch,
      leased: true,
      handle: null,
      task: Promise.resolve(),
      progress: newProgress(),
      agentName: run.agentName,
      createdAt: run.createdAt,
    };
    const wasHolding = [...this.runs.values()].some((r) => r.leased);
    this.runs.set(runId, held);
    this.heartbeat.claimed(wasHolding);
    held.task = this.executeHeld(held, segment ? () => RunSegments.within(segment, open) : open)
      .catch((e) => log.error("run bookkeeping failed", { run_id: runId, error: String(e) }))
      .finally(() => {
        if (this.runs.get(runId) === held) this.runs.delete(runId);
      });
    return held;
  }

  private async executeHeld(held: Held, open: () => Promise<RunHandle>) {
    const { runId, epoch } = held;
    let result: AgentResult;
    try {
      const h = await open();
      held.handle = h;
      if (!held.leased) h.abandon(); // lost while opening
      result = await h.awaitResult();
    } catch (e) {
      await this.progress.settle(held);
      const traceContext = this.segments?.end(runId, { state: e instanceof LeaseLostError ? "abandoned" : RUN.failed, error: e });
      if (e instanceof LeaseLostError) {
        // Another worker holds the run now; it is theirs to record.
        log.warn("run abandoned: lease lost", { run_id: runId, epoch, instance: this.instanceId });
        return;
      }
      // Corruption, a mismatched agent or a store that failed: the run cannot go on; say why on its row.
      const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      log.error("run could not execute", { run_id: runId, error });
      const corruptKey = e instanceof AgentCheckpointCorruptionError ? (e.key ?? "(unknown key)") : undefined;
      await persistently(
        () => finishRunRow(this.db, runId, epoch, { state: RUN.failed, error, finishedAt: new Date(), corruptKey, traceContext }),
        runId,
      );
      runFinished(held.agentName, "failed", held.createdAt);
      await this.progress.stopped(runId, "failed");
      return;
    }
    await this.progress.settle(held);
    const traceContext = this.segments?.end(runId, { state: result.state, step: result.stateSnapshot.step, error: result.error });
    // The database may be the thing that failed: keep trying until the outcome is recorded.
    await persistently(
      () =>
        finishRunRow(this.db, runId, epoch, {
          state: result.state,
          step: result.stateSnapshot.step,
          model: result.normalizedModel,
          totalTokens: result.usage.totalTokens,
          costUsd: result.totalCostUsd,
          error: result.error,
          phase: result.state === RUN.paused ? "paused" : isTerminal(result.state) ? "run_terminal" : undefined,
          finishedAt: isTerminal(result.state) ? new Date() : null,
          traceContext,
        }),
      runId,
    );
    if (isTerminal(result.state)) runFinished(held.agentName, result.state, held.createdAt);
    log.info("run stopped", { run_id: runId, state: result.state, step: result.stateSnapshot.step, instance: this.instanceId });
    await this.progress.stopped(runId, result.state, result.pendingApprovals);
  }
}

// Retries a bookkeeping write with backoff (0.2 s doubling to 5 s) for up to 10 minutes.
async function persistently(write: () => Promise<unknown>, runId: string, untilMs = Date.now() + 10 * 60_000): Promise<void> {
  for (let delay = 200; ; delay = Math.min(delay * 2, 5000)) {
    try {
      await write();
      return;
    } catch (e) {
      if (Date.now() > untilMs) throw e;
      log.warn("run row write failed; retrying", { run_id: runId, error: String(e).slice(0, 200) });
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

// The first user message of a run started from a form: one field a line, as people read it (the run page
// shows it), with the stored value beside a reformatted one, so the model still has what its tools take.
function inputMessageOf(agent: Agent, input: Record<string, unknown>): string {
  let schema: unknown = null;
  try {
    schema = agent.inputSchema ? z.toJSONSchema(agent.inputSchema) : null;
  } catch {
    schema = null; // a schema JSON Schema cannot express: the fields by their keys
  }
  return inputMessage(input, schema);
}
