// The run queue on PostgreSQL, through pg-boss. A job only says "execute run X"; what to execute comes from
// the Run row (reserved by the request) and the run's latest checkpoint. Every app instance and every
// `npm run worker` process works the queue; the row's lease guarantees one executor per run at a time.
import PgBoss from "pg-boss";
import { type Db, sqlInTransaction } from "../db/client.ts";
import { log } from "../log.ts";
import type { RunExecutor, RunQueue } from "./executor.ts";

export const RUN_QUEUE = "afk-run";

type Job = { runId: string };

export class PgBossQueue implements RunQueue {
  private readonly boss: PgBoss;
  private readonly started: Promise<void>;
  private executor: RunExecutor | null = null;
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  /** Loops asleep between polls; a wake-up ends one's sleep early. */
  private readonly sleepers: (() => void)[] = [];

  constructor(
    url: string,
    private readonly concurrency = 4,
  ) {
    // pg-boss keeps its tables in its own schema, away from the app's migrations.
    this.boss = new PgBoss({ connectionString: url, schema: "pgboss", max: 4, schedule: false, supervise: true });
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

  // With tx, the job is inserted in that transaction: it exists exactly when the decision does.
  async send(runId: string, tx?: Db): Promise<void> {
    await this.started;
    const db = tx ? sqlInTransaction(tx) : undefined;
    // Announced by the executor once committed (the live bus's "work"), which wakes the workers.
    await this.boss.send(RUN_QUEUE, { runId } satisfies Job, db ? { db } : {});
  }

  // Start taking jobs for this executor (app instances and worker processes): `concurrency` loops, each
  // fetching the next job as soon as it finished one and polling every half second when idle. Only the
  // loops take jobs, so at most `concurrency` runs execute here however many wake-ups arrive.
  async work(ex: RunExecutor): Promise<void> {
    await this.started;
    this.executor = ex;
    // Woken when any instance queues a job (LISTEN/NOTIFY); the loops' poll is the fallback.
    ex.live.subscribe((m) => {
      if (m.topic === "work") this.kick();
    });
    for (let i = 0; i < this.concurrency; i++) this.loops.push(this.loop(ex));
  }

  private async loop(ex: RunExecutor) {
    while (!this.stopping) {
      const took = await this.takeOne(ex).catch((e) => {
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

  private async takeOne(ex: RunExecutor): Promise<boolean> {
    const [job] = await this.boss.fetch<Job>(RUN_QUEUE, { batchSize: 1 });
    if (!job) return false;
    try {
      await ex.runJob(job.data.runId);
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
    if (!this.executor || this.stopping) return;
    this.sleepers.shift()?.();
  }

  async depth(): Promise<number> {
    await this.started;
    return this.boss.getQueueSize(RUN_QUEUE);
  }

  // Graceful: stop taking jobs, let the ones running finish (the executor hands back what does not).
  async stop(timeoutMs = 20_000): Promise<void> {
    this.stopping = true;
    await Promise.race([Promise.allSettled(this.loops), new Promise((r) => setTimeout(r, timeoutMs))]);
    await this.boss
      .stop({ graceful: true, wait: true, timeout: timeoutMs, close: true })
      .catch((e) => log.warn("queue stop failed", { error: String(e) }));
  }
}
