// Where a reserved run goes to be executed. A job only says "execute run X"; what to execute comes from
// the Run row (reserved by the request) and the run's latest checkpoint, and the row's lease guarantees
// one executor per run at a time. On PostgreSQL the queue is pg-boss: every app instance with workers and
// every `npm run worker` process works it, each at most `concurrency` runs at once; a web-only instance
// (concurrency 0) only adds jobs. With SQLite there is exactly one instance and the job is executed in
// this process at once.
import PgBoss from "pg-boss";
import { type Db, sqlInTransaction } from "../db/client.ts";
import type { LiveBus } from "../live/bus.ts";
import { log } from "../log.ts";
import { metrics } from "../metrics.ts";
import type { JobTrace } from "../telemetry/propagation.ts";
import type { Worker } from "./worker.ts";

export interface RunQueue {
  /**
   * Adds the run's job inside the transaction that reserved it: the job exists exactly when the reservation
   * does. trace: the reserving request's context, for the worker's spans (undefined when tracing is off).
   * takeover: the run was taken over from a holder that is gone: its job goes ahead of new ones, and the
   * jobs its previous holder left active are released.
   */
  send(runId: string, tx: Db, trace?: JobTrace, opts?: { takeover?: boolean }): Promise<void>;
  /** The transaction committed: the job may be taken now. */
  committed(runId: string, trace?: JobTrace): void;
  /**
   * Of these reserved runs (lease owner `queued`, lease expired), the ones no job holds any more: none
   * waits for a worker and none was taken by a worker within the last leaseMs (that worker died before
   * its claim). A run waiting in the queue, however long, is not among them.
   */
  stranded(runIds: string[], leaseMs: number): Promise<string[]>;
}

/** One instance (SQLite, tests): a committed reservation is executed here at once. */
export class InProcessQueue implements RunQueue {
  // Runs whose job is in flight here (from the commit until it settles), with how many.
  private readonly inFlight = new Map<string, number>();
  constructor(private readonly worker: Worker) {}
  async send(): Promise<void> {}
  committed(runId: string, trace?: JobTrace) {
    this.inFlight.set(runId, (this.inFlight.get(runId) ?? 0) + 1);
    void this.worker.take(runId, trace).finally(() => {
      const n = (this.inFlight.get(runId) ?? 1) - 1;
      if (n) this.inFlight.set(runId, n);
      else this.inFlight.delete(runId);
    });
  }
  async stranded(runIds: string[]): Promise<string[]> {
    return runIds.filter((id) => !this.inFlight.has(id));
  }
}

export const RUN_QUEUE = "afk-run";
/** pg-boss keeps its tables in its own schema, away from the app's migrations. */
export const QUEUE_SCHEMA = "pgboss";

type Job = { runId: string; trace?: JobTrace };

export class PgBossQueue implements RunQueue {
  private readonly boss: PgBoss;
  private readonly started: Promise<void>;
  private working = false;
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  /** Loops asleep between polls; a wake-up ends one's sleep early. */
  private readonly sleepers: (() => void)[] = [];

  constructor(
    url: string,
    readonly concurrency: number,
    private readonly live: LiveBus,
  ) {
    this.boss = new PgBoss({ connectionString: url, schema: QUEUE_SCHEMA, max: 4, schedule: false, supervise: true });
    this.boss.on("error", (e) => log.error("queue error", { error: String(e) }));
    this.started = this.boss.start().then(async () => {
      await this.boss.createQueue(RUN_QUEUE, { name: RUN_QUEUE, retryLimit: 5, retryDelay: 1, expireInSeconds: 900 }).catch((e) => {
        if (!/already exists/i.test(String(e))) throw e;
      });
    });
  }

  ready() {
    return this.started;
  }

  async send(runId: string, tx: Db, trace?: JobTrace, opts: { takeover?: boolean } = {}): Promise<void> {
    await this.started;
    const db = sqlInTransaction(tx);
    if (opts.takeover) {
      // The previous holder's job would stay active until pg-boss expires it (expireInSeconds), then be
      // retried and claim whatever reservation the run has then.
      const { rows } = await db.executeSql(
        `SELECT id FROM ${QUEUE_SCHEMA}.job WHERE name = $1 AND state = 'active' AND data->>'runId' = $2`,
        [RUN_QUEUE, runId],
      );
      const ids = (rows as { id: string }[]).map((r) => r.id);
      if (ids.length) await this.boss.cancel(RUN_QUEUE, ids, { db });
    }
    // pg-boss takes the highest priority first: a run taken over continues before the backlog's new runs.
    await this.boss.send(RUN_QUEUE, (trace ? { runId, trace } : { runId }) satisfies Job, { db, priority: opts.takeover ? 1 : 0 });
  }

  async stranded(runIds: string[], leaseMs: number): Promise<string[]> {
    if (!runIds.length) return [];
    await this.started;
    const { rows } = await this.boss.getDb().executeSql(
      `SELECT DISTINCT data->>'runId' AS "runId" FROM ${QUEUE_SCHEMA}.job WHERE name = $1 AND state < 'completed'
        AND data->>'runId' = ANY($2::text[]) AND (state < 'active' OR started_on > now() - make_interval(secs => $3))`,
      [RUN_QUEUE, runIds, leaseMs / 1000],
    );
    const held = new Set((rows as { runId: string }[]).map((r) => r.runId));
    return runIds.filter((id) => !held.has(id));
  }

  // Workers, here and in other processes, wake now rather than at their next poll.
  committed() {
    this.live.publish({ topic: "work" });
  }

  // Start taking jobs for this worker (app instances and worker processes): `concurrency` loops, each
  // fetching the next job as soon as it finished one and polling every half second when idle. Only the
  // loops take jobs and each holds its job until the run paused or ended, so at most `concurrency` runs
  // execute here however many wake-ups or takeovers arrive.
  async work(worker: Worker): Promise<void> {
    await this.started;
    if (this.working) return;
    this.working = true;
    // Woken when any instance queues a job (LISTEN/NOTIFY); the loops' poll is the fallback.
    this.live.subscribe((m) => {
      if (m.topic === "work") this.kick();
    });
    for (let i = 0; i < this.concurrency; i++) this.loops.push(this.loop(worker));
  }

  private async loop(worker: Worker) {
    while (!this.stopping) {
      const took = await this.takeOne(worker).catch((e) => {
        if (!this.stopping) log.warn("queue fetch failed", { error: String(e) });
        return false;
      });
      if (!took) await this.sleep(500);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        const i = this.sleepers.indexOf(done);
        if (i >= 0) this.sleepers.splice(i, 1);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.push(done);
    });
  }

  private async takeOne(worker: Worker): Promise<boolean> {
    const [job] = await this.boss.fetch<Job>(RUN_QUEUE, { batchSize: 1, includeMetadata: true });
    if (!job) return false;
    metrics().scheduleToStart.observe(Math.max(0, job.startedOn.getTime() - job.createdOn.getTime()) / 1000);
    try {
      await worker.runJob(job.data.runId, job.data.trace);
      await this.boss.complete(RUN_QUEUE, job.id);
    } catch (e) {
      await this.boss.fail(RUN_QUEUE, job.id, { error: String(e) });
    }
    return true;
  }

  // A job was queued somewhere: wake one idle loop to fetch it now (low latency after a decision). Every
  // instance hears every wake-up; a fetch of its own per wake-up (as before) let a burst of 200 jobs start
  // far more than `concurrency` runs at once in every process.
  kick() {
    if (!this.working || this.stopping) return;
    this.sleepers.shift()?.();
  }

  async depth(): Promise<number> {
    await this.started;
    return this.boss.getQueueSize(RUN_QUEUE);
  }

  /** Takes no more jobs (the loops end once their current job has): the start of a drain. */
  pause() {
    this.stopping = true;
    for (const wake of [...this.sleepers]) wake();
  }

  // Stop taking jobs, wait up to timeoutMs for the loops' jobs to finish, close. A drain waits for the
  // runs first (Worker.shutdown) and gives this what is left of its budget.
  async stop(timeoutMs = 20_000): Promise<void> {
    this.pause();
    const t0 = Date.now();
    await Promise.race([Promise.allSettled(this.loops), new Promise((r) => setTimeout(r, timeoutMs))]);
    await this.boss
      .stop({ graceful: true, wait: true, timeout: Math.max(1000, timeoutMs - (Date.now() - t0)), close: true })
      .catch((e) => log.warn("queue stop failed", { error: String(e) }));
  }
}
