// Runs execute in the background, never inside the request that asked for them.
//
// Every start, resume, cancel or retry is two steps:
//  1. reserve (in the request): a compare-and-set on the Run row's state moves it to `running` with the
//     placeholder lease owner "queued". Exactly one of many concurrent requests wins; the others get 409.
//  2. execute (on a worker): the worker claims the reserved row (or a row whose lease expired because its
//     worker died), then runs from the latest checkpoint — or from the start if there is none — until the
//     run pauses or ends. While it runs, a heartbeat renews the lease; a worker that loses its lease stops.
// Without a queue (SQLite, tests) step 2 happens in this process right away; with one (PostgreSQL), any
// app instance or `npm run worker` process picks the job up.
import "server-only";
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { type Db, transaction } from "../db/client.ts";
import type { AppContext } from "../context.ts";
import { createRuntime } from "../runtime.ts";
import {
  type Agent,
  AgentCheckpointCorruptionError,
  type AgentResult,
  LeaseLostError,
  type ModelAdapter,
  type RunEvent,
  type RunHandle,
  type RunnerConfig,
  RunRewindError,
  isTerminal,
  loadLatestCheckpoint,
  readLatestCheckpoint,
  prepareFork,
  prepareRetry,
  terminalResultOf,
} from "../runner/index.ts";
import { log } from "../log.ts";
import {
  claimReserved,
  expiredLeases,
  finishRunRow,
  getRunRow,
  markRunCorrupt,
  orphanRuns,
  requestCancel,
  releaseLease,
  renewLeases,
  reserveRun,
  setRunState,
  takeOver,
  updateRunProgress,
} from "../db/runs.ts";
import { type WebhookConfig, notifyPaused } from "../webhooks/pause.ts";
import { type AuditInput, appendAudit } from "../db/audit.ts";
import { LiveBus } from "../live/bus.ts";
import type { McpServerConfig } from "../agents/mcp.ts";

// notify: the conversation grew since the last write (survives coalescing, unlike phase).
type RowPatch = { step?: number; phase?: string; notify?: boolean };

// Where reserved runs go to be executed. The default executes them in this process.
// A committed job is announced on the live bus ("work"): this process's workers and every other's wake.
export interface RunQueue {
  send(runId: string, tx?: Db): Promise<void>;
}

/** Reserves runId (moving it from `from`), writes its audit entry and enqueues it, in the caller's transaction. */
export type TxSubmit = (runId: string, from: string, audit: AuditInput, opts?: { cancel?: boolean }) => Promise<boolean>;

// heartbeatMs: how often leases are renewed (default a third of the lease; tests set it past the lease to
// play a worker that stalls).
export type ExecutorOptions = {
  config?: Partial<RunnerConfig>;
  models?: Record<string, ModelAdapter>;
  agents?: Record<string, Agent>;
  /** MCP servers of the agents in `agents`, by agent name. */
  mcp?: Record<string, McpServerConfig[]>;
  demoLatencyMs?: number;
  webhook?: WebhookConfig | null;
  leaseMs?: number;
  heartbeatMs?: number;
  queue?: RunQueue;
  /** Where live updates go (default: this process only). */
  live?: LiveBus;
};

const CONVERSATION_PHASES = new Set(["post_llm", "post_tool_batch", "post_subagent_batch"]);

// Streamed text is published at most this often per run (one message carries every delta since).
const DELTA_FLUSH_MS = 50;

export class RunExecutor {
  // The runner and its store; services use `context`, the executor alone drives the runner.
  readonly rt;
  /** What services receive: the database, the store, the agents and this executor. */
  readonly context: AppContext;
  readonly instanceId = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  readonly leaseMs: number;
  queue: RunQueue | null;
  private readonly active = new Map<string, RunHandle>();
  private readonly tracked = new Set<string>();
  // The fencing epoch of each claim this process holds, and when its lease was last renewed.
  private readonly epochs = new Map<string, number>();
  private lastRenewedMs = Date.now();
  private readonly tasks = new Map<string, Promise<void>>();
  private readonly claiming = new Set<Promise<unknown>>();
  // Per run: the newest patch not yet written, and the write in flight. Checkpoint events arrive many
  // times a step; only the newest state matters, so they coalesce into one row update at a time.
  private readonly patches = new Map<string, RowPatch>();
  private readonly writing = new Map<string, Promise<void>>();
  private heartbeat: NodeJS.Timeout | null = null;
  readonly live: LiveBus;
  // Per run: streamed text not yet published, where it starts in the step's text, and the flush timer.
  private readonly deltas = new Map<string, { step: number; offset: number; text: string; timer: NodeJS.Timeout | null }>();

  constructor(
    private readonly db: Db,
    private readonly opts: ExecutorOptions = {},
  ) {
    this.leaseMs = opts.leaseMs ?? 15_000;
    this.queue = opts.queue ?? null;
    this.live = opts.live ?? new LiveBus();
    // A cancel asked on any instance stops the run here at once if it executes here.
    this.live.subscribe((m) => {
      if (m.topic === "cancel") this.active.get(m.runId)?.cancel();
    });
    this.rt = createRuntime(db, {
      config: { instanceId: this.instanceId, ...opts.config },
      models: opts.models,
      agents: opts.agents,
      mcp: opts.mcp,
      demoLatencyMs: opts.demoLatencyMs,
      onEvent: (e) => this.onEvent(e),
    });
    this.context = { db, store: this.rt.store, agents: this.rt.agents, executor: this, live: this.live };
  }

  agent(name: string): Agent {
    return this.rt.agent(name);
  }

  activeCount() {
    return this.tracked.size;
  }

  // Step 1. Returns false when the run is not in `from` (someone else got there first).
  async reserve(runId: string, from: string, tx: Db = this.db, opts: { cancel?: boolean } = {}): Promise<boolean> {
    return reserveRun(tx, runId, from, this.leaseMs, opts.cancel ?? false);
  }

  // Hands a reserved run to the queue, or executes it here. With tx, the job is part of that transaction.
  async dispatch(runId: string, tx?: Db): Promise<void> {
    if (this.queue) {
      await this.queue.send(runId, tx);
      // Committed unless in a transaction (then `dispatched` says so after the commit).
      if (!tx) this.live.publish({ topic: "work" });
      return;
    }
    const claim = this.execute(runId).catch((e) => log.error("could not execute run", { run_id: runId, error: String(e) }));
    this.claiming.add(claim);
    void claim.finally(() => this.claiming.delete(claim));
  }

  /**
   * Runs fn in one transaction. A run it submits (reserve + audit entry + job, all in that transaction)
   * is dispatched once the transaction has committed, never before: a worker cannot claim a reservation
   * that might still roll back, and a crash leaves neither a resumed run without its audit entry nor an
   * entry for a resume that never happened.
   */
  async transaction<T>(fn: (tx: Db, submit: TxSubmit) => Promise<T>): Promise<T> {
    const submitted: string[] = [];
    const result = await transaction(
      this.db,
      async (tx) => {
        // The reservation is the first write of the transaction where it comes first, so SQLite takes
        // its write lock up front (no read-to-write upgrade for two instances to deadlock on).
        const submit: TxSubmit = async (runId, from, audit, opts = {}) => {
          if (!(await this.reserve(runId, from, tx, opts))) return false;
          await appendAudit(tx, audit);
          if (this.queue) await this.queue.send(runId, tx);
          submitted.push(runId);
          return true;
        };
        return fn(tx, submit);
      },
      { maxWait: 20_000, timeout: 20_000 },
    );
    for (const runId of submitted) this.dispatched(runId);
    return result;
  }

  /** Reserve + dispatch, the common case; with audit, reservation, entry and job commit together. */
  async submit(runId: string, from: string, opts: { cancel?: boolean; audit?: AuditInput } = {}): Promise<boolean> {
    const { audit } = opts;
    if (!audit) {
      if (!(await this.reserve(runId, from, this.db, opts))) return false;
      await this.dispatch(runId);
      this.live.publish({ topic: "run", runId });
      return true;
    }
    return this.transaction((_tx, submit) => submit(runId, from, audit, opts));
  }

  // After the transaction that reserved a run (and, with a queue, enqueued its job) committed.
  private dispatched(runId: string) {
    this.live.publish({ topic: "run", runId }); // reserved: pages show it running
    // Workers, here and in other processes, wake now rather than at their next poll.
    if (this.queue) this.live.publish({ topic: "work" });
    else void this.dispatch(runId);
  }

  start = (runId: string) => this.submit(runId, "pending");
  resume = (runId: string) => this.submit(runId, "paused");

  // Resume a paused run and record who (null: the system) resumed it, together.
  resumeWithAudit(runId: string, actor: AuditInput["actor"], data: Record<string, unknown> = {}) {
    return this.submit(runId, "paused", {
      audit: { actor, action: actor ? "run.resume" : "run.auto_resume", targetType: "run", targetId: runId, data },
    });
  }

  async retry(runId: string, audit?: AuditInput): Promise<boolean> {
    const run = await getRunRow(this.db, runId);
    if (!run) return false;
    const reserved = audit
      ? await transaction(this.db, async (tx) => (await this.reserve(runId, "failed", tx)) && !!(await appendAudit(tx, audit)))
      : await this.reserve(runId, "failed");
    if (!reserved) return false;
    try {
      await prepareRetry(this.rt.store, run.threadId, runId);
    } catch (e) {
      // A terminal record that became durable after its flush timed out: the run did end that way.
      const ended = e instanceof RunRewindError ? await this.durableOutcome(run.threadId, runId) : null;
      await setRunState(this.db, runId, ended ? { state: ended, error: null, finishedAt: new Date() } : { state: "failed" });
      if (e instanceof AgentCheckpointCorruptionError) await markRunCorrupt(this.db, runId, e.key ?? null);
      if (ended) return false;
      throw e;
    }
    await setRunState(this.db, runId, { state: "running", error: null, finishedAt: null });
    await this.dispatch(runId);
    this.live.publish({ topic: "run", runId });
    return true;
  }

  // Writes the fork's records (the caller created its Run row, state pending) and starts it.
  async fork(sourceRunId: string, seq: number, newRunId: string, submittedBy: string | null): Promise<void> {
    const src = await getRunRow(this.db, sourceRunId);
    if (!src) throw new Error(`No run ${sourceRunId}`);
    await prepareFork(this.rt.store, {
      threadId: src.threadId,
      runId: sourceRunId,
      seq,
      newRunId,
      agent: this.rt.agent(src.agentName),
      context: { submitted_by: submittedBy },
    });
    await this.start(newRunId);
  }

  private async durableOutcome(threadId: string, runId: string): Promise<string | null> {
    const t = terminalResultOf(await loadLatestCheckpoint(this.rt.store, threadId, runId));
    return t && t.state !== "failed" ? t.state : null;
  }

  // A run executing anywhere is asked to stop (its worker's heartbeat sees the flag); a paused one is
  // resumed only to record its cancellation.
  // The cancellation and its audit entry commit together.
  async cancel(runId: string, audit: AuditInput): Promise<boolean> {
    if (await this.submit(runId, "paused", { cancel: true, audit })) return true;
    const flagged = await transaction(this.db, async (tx) => {
      if (!(await requestCancel(tx, runId))) return false;
      await appendAudit(tx, audit);
      return true;
    });
    // Executing here or elsewhere: the message stops it at once (the worker's heartbeat sees the flag too,
    // should the message be lost).
    if (flagged) this.live.publish({ topic: "cancel", runId });
    return flagged;
  }

  // Step 2: claim a reserved (or abandoned) run and start executing it. True when this process claimed it.
  async execute(runId: string, claim: "reserved" | "expired" | "any" = "reserved"): Promise<boolean> {
    if (this.tracked.has(runId)) return false;
    const epoch =
      claim === "reserved"
        ? await claimReserved(this.db, runId, this.instanceId, this.leaseMs)
        : await takeOver(this.db, runId, this.instanceId, this.leaseMs, claim === "any");
    if (epoch === null) return false;
    const run = await getRunRow(this.db, runId);
    if (!run) return false;
    const agent = this.rt.agent(run.agentName);
    // Every write of this execution is conditional on this claim (see PrismaStore.fenced).
    const store = this.rt.store.fenced({ runId, epoch });
    this.spawn(runId, epoch, async () => {
      // Its MCP servers' tools, before the agent's shape is checked against the run's.
      await this.rt.agents.prepare(agent);
      let h: RunHandle;
      if (await readLatestCheckpoint(store, run.threadId, runId))
        h = await this.rt.runner.resumeHandle(agent, { runId, threadId: run.threadId, store });
      else {
        const input = JSON.parse(run.input) as Record<string, unknown>;
        h = this.rt.runner.runHandle(agent, {
          runId,
          threadId: run.threadId,
          store,
          userMessage: agent.toUserMessage ? agent.toUserMessage(input) : JSON.stringify(input),
          context: { input, submitted_by: run.submittedByEmail },
        });
      }
      if (run.cancelRequested) h.cancel();
      return h;
    });
    return true;
  }

  // A queue worker's job: execute the run and resolve when it has paused or ended.
  async runJob(runId: string): Promise<void> {
    if (await this.execute(runId)) await this.tasks.get(runId);
  }

  // Runs whose worker died (lease expired) are taken over from their latest checkpoint.
  async takeOverExpired(): Promise<number> {
    let n = 0;
    for (const id of await expiredLeases(this.db)) if (await this.execute(id, "expired")) n++;
    if (n) log.warn("took over runs with expired leases", { count: n, instance: this.instanceId });
    return n;
  }

  // After a restart of the embedded (single-instance) server: whatever the previous process left running
  // or pending is executed now.
  async recover(): Promise<number> {
    let n = 0;
    for (const run of await orphanRuns(this.db)) {
      if (this.tracked.has(run.id)) continue;
      const ok = run.state === "pending" ? await this.start(run.id) : await this.execute(run.id, "any");
      if (ok) n++;
    }
    return n;
  }

  // Resolves when every run started by this executor has stopped (for tests, benchmarks and shutdown).
  async idle(): Promise<void> {
    while (this.tasks.size || this.claiming.size) await Promise.allSettled([...this.tasks.values(), ...this.claiming]);
  }

  // Graceful shutdown: wait up to timeoutMs for runs to pause or end; hand the rest back (their leases
  // expire now, so another instance takes them over from their latest checkpoint at once).
  async shutdown(timeoutMs = 20_000): Promise<void> {
    const done = await Promise.race([this.idle().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs))]);
    if (!done) for (const id of this.tracked) await releaseLease(this.db, id, this.instanceId);
    this.stopHeartbeat();
  }

  private startHeartbeat() {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => void this.beat(), this.opts.heartbeatMs ?? Math.max(200, Math.floor(this.leaseMs / 3)));
    this.heartbeat.unref();
  }

  private stopHeartbeat() {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private async beat() {
    const held = [...this.epochs].map(([id, epoch]) => ({ id, epoch }));
    if (!held.length) return this.stopHeartbeat();
    const startedMs = Date.now();
    try {
      const rows = await renewLeases(this.db, held, this.instanceId, this.leaseMs);
      this.lastRenewedMs = startedMs;
      const renewed = new Map(rows.map((r) => [r.id, r]));
      for (const { id, epoch } of held) {
        const h = this.active.get(id);
        const row = renewed.get(id);
        // Lost the lease (another worker took the run over): stop without writing anything more. Not a
        // cancel: that would write a terminal record over the new owner's work.
        if (!row && this.epochs.get(id) === epoch) {
          log.error("lease lost; abandoning run", { run_id: id, epoch, instance: this.instanceId });
          this.abandon(id);
        } else if (row?.cancelRequested && h) h.cancel();
      }
    } catch (e) {
      log.warn("lease heartbeat failed", { error: String(e).slice(0, 200), instance: this.instanceId });
      // Unable to renew for half a lease: another worker may take the runs over soon. Stop them now, at
      // their last durable checkpoint, rather than race the successor.
      if (Date.now() - this.lastRenewedMs > this.leaseMs / 2) {
        for (const { id } of held) {
          log.error("lease not renewable; abandoning run", { run_id: id, instance: this.instanceId });
          this.abandon(id);
        }
      }
    }
  }

  private abandon(runId: string) {
    this.epochs.delete(runId);
    this.active.get(runId)?.abandon();
  }

  private spawn(runId: string, epoch: number, open: () => Promise<RunHandle>): Promise<void> {
    this.tracked.add(runId);
    if (!this.epochs.size) this.lastRenewedMs = Date.now();
    this.epochs.set(runId, epoch);
    this.startHeartbeat();
    const task = (async () => {
      let result: AgentResult;
      try {
        const h = await open();
        this.active.set(runId, h);
        if (!this.epochs.has(runId)) h.abandon(); // lost while opening
        result = await h.awaitResult();
      } catch (e) {
        await this.settle(runId);
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
          () => finishRunRow(this.db, runId, epoch, { state: "failed", error, finishedAt: new Date(), corruptKey }),
          runId,
        );
        this.live.publish({ topic: "run", runId, state: "failed" });
        return;
      }
      await this.settle(runId);
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
            phase: result.state === "paused" ? "paused" : isTerminal(result.state) ? "run_terminal" : undefined,
            finishedAt: isTerminal(result.state) ? new Date() : null,
          }),
        runId,
      );
      log.info("run stopped", { run_id: runId, state: result.state, step: result.stateSnapshot.step, instance: this.instanceId });
      this.live.publish({ topic: "run", runId, state: result.state });
      if (result.state === "paused") this.live.publish({ topic: "inbox" });
      if (result.state === "paused" && this.opts.webhook) await notifyPaused(this.db, this.opts.webhook, runId, result.pendingApprovals);
    })()
      .catch((e) => log.error("run bookkeeping failed", { run_id: runId, error: String(e) }))
      .finally(() => {
        this.active.delete(runId);
        this.tracked.delete(runId);
        this.tasks.delete(runId);
        if (this.epochs.get(runId) === epoch) this.epochs.delete(runId);
      });
    this.tasks.set(runId, task);
    return task;
  }

  private onEvent(e: RunEvent) {
    if (e.type === "checkpoint") log.debug("checkpoint", { run_id: e.runId, phase: e.data.phase, step: e.step });
    if (!this.tracked.has(e.runId)) return; // subagent runs have no Run row
    if (e.type === "llm_delta") return this.streamed(e.runId, e.step, String(e.data.text ?? ""));
    const patch: RowPatch = { step: e.step };
    if (e.type === "checkpoint" && typeof e.data.phase === "string") {
      patch.phase = e.data.phase;
      if (CONVERSATION_PHASES.has(e.data.phase)) patch.notify = true;
    }
    const prev = this.patches.get(e.runId);
    this.patches.set(e.runId, { ...prev, ...patch, notify: prev?.notify || patch.notify });
    if (!this.writing.has(e.runId)) this.writing.set(e.runId, this.drain(e.runId));
  }

  // Text a model streams, batched per run: one live message per DELTA_FLUSH_MS.
  private streamed(runId: string, step: number, text: string) {
    let d = this.deltas.get(runId);
    if (d && d.step !== step) {
      this.flushDeltas(runId);
      d = undefined;
    }
    if (!d) {
      d = { step, offset: 0, text: "", timer: null };
      this.deltas.set(runId, d);
    }
    d.text += text;
    d.timer ??= setTimeout(() => this.flushDeltas(runId), DELTA_FLUSH_MS);
  }

  private flushDeltas(runId: string, done = false) {
    const d = this.deltas.get(runId);
    if (!d) return;
    if (d.timer) clearTimeout(d.timer);
    d.timer = null;
    if (d.text) this.live.publish({ topic: "delta", runId, step: d.step, offset: d.offset, text: d.text });
    d.offset += d.text.length;
    d.text = "";
    if (done) this.deltas.delete(runId);
  }

  private async drain(runId: string) {
    try {
      for (let p = this.patches.get(runId); p; p = this.patches.get(runId)) {
        this.patches.delete(runId);
        const epoch = this.epochs.get(runId);
        if (epoch !== undefined) await updateRunProgress(this.db, runId, epoch, { step: p.step, phase: p.phase });
        // The conversation grew (a response, tool results): pages showing the run refetch, and drop the
        // streamed text once the response is in the snapshot. Other phases change nothing they show.
        if (p.notify) {
          this.flushDeltas(runId, true);
          this.live.publish({ topic: "run", runId });
        }
      }
    } catch (e) {
      log.warn("run row update failed", { run_id: runId, error: String(e) });
    } finally {
      this.writing.delete(runId);
    }
  }

  private async settle(runId: string) {
    this.patches.delete(runId);
    await this.writing.get(runId);
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
