// The one dispatch path. Runs execute in the background, never inside the request that asked for them,
// and every execution — a start, resume, retry or cancel, and a takeover of a run whose worker died — is
// the same two steps:
//  1. reserve: in one transaction, a compare-and-set on the Run row moves it to running with the
//     placeholder lease owner QUEUED and a new fencing epoch (exactly one of many concurrent requests
//     wins; the others get false), its audit entry is written and its job is queued;
//  2. after the commit, the queue hands the job to a worker (worker.ts), which claims the reservation.
// A takeover re-reserves an expired run the same way instead of executing it, so a web-only instance
// executes nothing and no process executes more runs than its queue's concurrency.
import "server-only";
import type { AgentRegistry } from "../agents/registry.ts";
import { type AuditInput, appendAudit } from "../db/audit.ts";
import { type Db, transaction } from "../db/client.ts";
import type { LiveBus } from "../live/bus.ts";
import { log } from "../log.ts";
import {
  AgentCheckpointCorruptionError,
  loadLatestCheckpoint,
  prepareFork,
  prepareRetry,
  RunRewindError,
  RUN,
  type RunState,
  terminalResultOf,
} from "../runner/index.ts";
import type { ROW_MOVES } from "../db/run-moves.ts";
import {
  expiredLeases,
  getRunRow,
  markRunCorrupt,
  orphanRuns,
  QUEUED,
  requestCancel,
  reserveRun,
  setRunState,
  takeOver,
} from "../db/runs.ts";
import { PrismaStore } from "../db/store.ts";
import type { RunQueue } from "./queue.ts";
import { jobTrace } from "../telemetry/propagation.ts";

/**
 * Where a reservation starts from: a run in that state, or a running run whose lease expired (its worker
 * died or stalled), or — after a restart of the one embedded instance — any running run.
 */
export type ReserveFrom = (typeof ROW_MOVES.reserve.from)[number] | "expired" | "orphaned";

/** Reserves runId (from `from`), writes its audit entry and queues its job, in the caller's transaction. */
export type TxSubmit = (runId: string, from: ReserveFrom, audit: AuditInput | null, opts?: SubmitOptions) => Promise<boolean>;
/** cancel: reserve to record a cancellation; epoch: a takeover only of the reservation found expired. */
type SubmitOptions = { cancel?: boolean; epoch?: number };

export type DispatcherDeps = {
  store: PrismaStore;
  agents: AgentRegistry;
  queue: RunQueue;
  live: LiveBus;
  leaseMs: number;
  /** Whether this process executes the run now (its own expired lease is left to its heartbeat). */
  executesHere: (runId: string) => boolean;
  /** This process's lease owner name, for the logs. */
  instanceId?: string;
};

export class Dispatcher {
  readonly leaseMs: number;

  constructor(
    private readonly db: Db,
    private readonly deps: DispatcherDeps,
  ) {
    this.leaseMs = deps.leaseMs;
  }

  /**
   * Runs fn in one transaction; the runs it submits (reservation + audit entry + job, all in that
   * transaction) are dispatched once it has committed, never before: a worker cannot claim a reservation
   * that might still roll back, and a crash leaves neither a resumed run without its audit entry nor an
   * entry for a resume that never happened. Every reservation goes through here.
   */
  async transaction<T>(fn: (tx: Db, submit: TxSubmit) => Promise<T>): Promise<T> {
    const submitted: string[] = [];
    // The request's trace goes with each job, so the worker's spans join it.
    const trace = jobTrace();
    const result = await transaction(
      this.db,
      async (tx) => {
        // The reservation is the first write of the transaction where it comes first, so SQLite takes
        // its write lock up front (no read-to-write upgrade for two instances to deadlock on).
        const submit: TxSubmit = async (runId, from, audit, opts = {}) => {
          if (!(await this.reserve(tx, runId, from, opts))) return false;
          if (audit) await appendAudit(tx, audit);
          await this.deps.queue.send(runId, tx, trace, { takeover: from === "expired" || from === "orphaned" });
          submitted.push(runId);
          return true;
        };
        return fn(tx, submit);
      },
      { maxWait: 20_000, timeout: 20_000 },
    );
    for (const runId of submitted) {
      this.deps.live.publish({ topic: "run", runId }); // reserved: pages show it running
      this.deps.queue.committed(runId, trace);
    }
    return result;
  }

  /** Reserve + dispatch on its own; with audit, reservation, entry and job commit together. */
  submit(runId: string, from: ReserveFrom, opts: SubmitOptions & { audit?: AuditInput } = {}): Promise<boolean> {
    return this.transaction((_tx, submit) => submit(runId, from, opts.audit ?? null, opts));
  }

  start = (runId: string) => this.submit(runId, RUN.pending);
  resume = (runId: string) => this.submit(runId, RUN.paused);

  // Resume a paused run and record who (null: the system) resumed it, together.
  resumeWithAudit(runId: string, actor: AuditInput["actor"], data: Record<string, unknown> = {}) {
    return this.submit(runId, RUN.paused, {
      audit: { actor, action: actor ? "run.resume" : "run.auto_resume", targetType: "run", targetId: runId, data },
    });
  }

  // A failed run goes on from its last good snapshot: the reservation, the rewind and the job commit
  // together (a rewind that fails leaves the run failed, as it was).
  async retry(runId: string, audit?: AuditInput): Promise<boolean> {
    const run = await getRunRow(this.db, runId);
    if (!run) return false;
    try {
      return await this.transaction(async (tx, submit) => {
        if (!(await submit(runId, RUN.failed, audit ?? null))) return false;
        await prepareRetry(new PrismaStore(tx), run.threadId, runId);
        await setRunState(tx, runId, { state: RUN.running, error: null, finishedAt: null });
        return true;
      });
    } catch (e) {
      // A terminal record that became durable after its flush timed out: the run did end that way.
      const ended = e instanceof RunRewindError ? await this.durableOutcome(run.threadId, runId) : null;
      if (ended) await setRunState(this.db, runId, { state: ended, error: null, finishedAt: new Date() });
      if (e instanceof AgentCheckpointCorruptionError) await markRunCorrupt(this.db, runId, e.key ?? null);
      if (ended) return false;
      throw e;
    }
  }

  // Writes the fork's records (the caller created its Run row, state pending) and starts it.
  async fork(sourceRunId: string, seq: number, newRunId: string, submittedBy: string | null): Promise<void> {
    const src = await getRunRow(this.db, sourceRunId);
    if (!src) throw new Error(`No run ${sourceRunId}`);
    await prepareFork(this.deps.store, {
      threadId: src.threadId,
      runId: sourceRunId,
      seq,
      newRunId,
      agent: this.deps.agents.get(src.agentName),
      context: { submitted_by: submittedBy },
    });
    await this.start(newRunId);
  }

  // A paused run is resumed only to record its cancellation; a run executing anywhere is asked to stop
  // (its worker's heartbeat sees the flag, and the live message stops it at once). The cancellation and
  // its audit entry commit together.
  async cancel(runId: string, audit: AuditInput): Promise<boolean> {
    let flagged = false;
    const ok = await this.transaction(async (tx, submit) => {
      if (await submit(runId, RUN.paused, audit, { cancel: true })) return true;
      if (!(await requestCancel(tx, runId))) return false;
      await appendAudit(tx, audit);
      flagged = true;
      return true;
    });
    if (flagged) this.deps.live.publish({ topic: "cancel", runId });
    return ok;
  }

  // Runs whose worker died (lease expired) are re-reserved and queued ahead of new runs; a worker takes
  // them over from their latest checkpoint. A reservation (owner QUEUED) is held by its job, not by a
  // process: it is re-reserved only when the queue says no job holds it any more, never for waiting long.
  async takeOverExpired(): Promise<number> {
    const expired = (await expiredLeases(this.db)).filter((r) => !this.deps.executesHere(r.id));
    const queued = expired.filter((r) => r.leaseOwner === QUEUED).map((r) => r.id);
    const stranded = new Set(queued.length ? await this.deps.queue.stranded(queued, this.leaseMs) : []);
    const taken: string[] = [];
    for (const r of expired) {
      if (r.leaseOwner === QUEUED && !stranded.has(r.id)) continue;
      if (!(await this.submit(r.id, "expired", { epoch: r.leaseEpoch }))) continue;
      taken.push(r.id);
      const expiredMs = r.leaseUntilMs === null ? null : Date.now() - Number(r.leaseUntilMs);
      log.warn("run taken over", {
        run_id: r.id,
        previous_owner: r.leaseOwner,
        previous_epoch: r.leaseEpoch,
        expired_ms: expiredMs,
        instance: this.deps.instanceId,
      });
    }
    if (taken.length)
      log.warn("took over runs with expired leases", { count: taken.length, run_ids: taken, instance: this.deps.instanceId });
    return taken.length;
  }

  // After a restart of the embedded (single-instance) server: whatever the previous process left running
  // or pending is dispatched again.
  async recover(): Promise<number> {
    let n = 0;
    for (const run of await orphanRuns(this.db)) {
      if (this.deps.executesHere(run.id)) continue;
      if (await this.submit(run.id, run.state === RUN.pending ? RUN.pending : "orphaned")) n++;
    }
    return n;
  }

  private reserve(tx: Db, runId: string, from: ReserveFrom, opts: SubmitOptions): Promise<boolean> {
    if (from === "expired" || from === "orphaned") return takeOver(tx, runId, this.leaseMs, from === "orphaned", opts.epoch);
    return reserveRun(tx, runId, from, this.leaseMs, opts.cancel ?? false);
  }

  private async durableOutcome(threadId: string, runId: string): Promise<RunState | null> {
    const t = terminalResultOf(await loadLatestCheckpoint(this.deps.store, threadId, runId));
    return t && t.state !== RUN.failed ? t.state : null;
  }
}
