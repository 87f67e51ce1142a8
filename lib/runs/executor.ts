// Runs execute in the background of the server process, never inside the request that asked for them.
// The Run row is the console's summary of a run (state, step, phase, usage); it follows the runner's events.
// Starting or resuming claims the row with a compare-and-set on its state, so two requests (or two app
// instances on one database) cannot start the same run twice.
import type { Db } from "../db/client.ts";
import { createRuntime } from "../runtime.ts";
import { type Agent, type AgentResult, type ModelAdapter, type RunEvent, type RunHandle, type RunnerConfig, checkpointLatestKey, isTerminal, prepareFork, prepareRetry } from "../runner/index.ts";
import { log } from "../log.ts";
import { claimRun, finishRunRow, getRunRow, orphanRuns, setRunState, updateRunProgress } from "./queries.ts";
import { type WebhookConfig, notifyPaused } from "../webhooks/pause.ts";

type RowPatch = { step?: number; phase?: string };

export type ExecutorOptions = { config?: Partial<RunnerConfig>; models?: Record<string, ModelAdapter>; webhook?: WebhookConfig | null };

export class RunExecutor {
  readonly rt;
  private readonly active = new Map<string, RunHandle>();
  private readonly tracked = new Set<string>();
  private readonly tasks = new Set<Promise<void>>();
  // Per run: the newest patch not yet written, and the write in flight. Checkpoint events arrive many
  // times a step; only the newest state matters, so they coalesce into one row update at a time.
  private readonly patches = new Map<string, RowPatch>();
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly opts: ExecutorOptions = {},
  ) {
    this.rt = createRuntime(db, { config: opts.config, models: opts.models, onEvent: (e) => this.onEvent(e) });
  }

  agent(name: string): Agent {
    return this.rt.agent(name);
  }

  isActive(runId: string) {
    return this.active.has(runId);
  }

  // Claims a pending run and starts it. Returns false if someone else already did.
  async start(runId: string): Promise<boolean> {
    const run = await getRunRow(this.db, runId);
    if (!run || !(await this.claim(runId, "pending"))) return false;
    const agent = this.rt.agent(run.agentName);
    const input = JSON.parse(run.input) as Record<string, unknown>;
    const context = { input, submitted_by: run.submittedByEmail };
    this.spawn(runId, async () => this.rt.runner.runHandle(agent, { runId, threadId: run.threadId, userMessage: agent.toUserMessage ? agent.toUserMessage(input) : JSON.stringify(input), context }));
    return true;
  }

  // Claims a paused run and resumes it from its latest checkpoint.
  async resume(runId: string, opts: { cancel?: boolean } = {}): Promise<boolean> {
    const run = await getRunRow(this.db, runId);
    if (!run || !(await this.claim(runId, "paused"))) return false;
    this.spawn(runId, async () => {
      const h = await this.rt.runner.resumeHandle(this.rt.agent(run.agentName), { runId, threadId: run.threadId });
      if (opts.cancel) h.cancel();
      return h;
    });
    return true;
  }

  // A failed run continues from its last snapshot checkpoint; effects already done replay.
  async retry(runId: string): Promise<boolean> {
    const run = await getRunRow(this.db, runId);
    if (!run || !(await this.claim(runId, "failed"))) return false;
    try {
      await prepareRetry(this.rt.store, run.threadId, runId);
    } catch (e) {
      await setRunState(this.db, runId, { state: "failed" });
      throw e;
    }
    await setRunState(this.db, runId, { state: "running", error: null, finishedAt: null });
    this.spawn(runId, async () => this.rt.runner.resumeHandle(this.rt.agent(run.agentName), { runId, threadId: run.threadId }));
    return true;
  }

  // Writes the fork's records; the caller has created its Run row (state pending).
  async fork(sourceRunId: string, seq: number, newRunId: string, submittedBy: string | null): Promise<void> {
    const src = await getRunRow(this.db, sourceRunId);
    if (!src) throw new Error(`No run ${sourceRunId}`);
    const agent = this.rt.agent(src.agentName);
    await prepareFork(this.rt.store, { threadId: src.threadId, runId: sourceRunId, seq, newRunId, agent, context: { submitted_by: submittedBy } });
    if (!(await this.claim(newRunId, "pending"))) return;
    this.spawn(newRunId, async () => this.rt.runner.resumeHandle(agent, { runId: newRunId, threadId: newRunId }));
  }

  // Cancels a run executing here; a paused run is resumed only to record its cancellation.
  async cancel(runId: string): Promise<boolean> {
    const h = this.active.get(runId);
    if (h) {
      h.cancel();
      return true;
    }
    return this.resume(runId, { cancel: true });
  }

  // After a restart of the embedded (single-instance) server: runs the previous process was executing are
  // resumed from their latest checkpoint, and runs it never started are started.
  async recover(): Promise<number> {
    let n = 0;
    for (const run of await orphanRuns(this.db)) {
      if (this.tracked.has(run.id)) continue;
      const started = (await this.rt.store.getState(run.threadId, checkpointLatestKey(run.id))) !== undefined;
      if (!started) {
        await setRunState(this.db, run.id, { state: "pending" });
        if (await this.start(run.id)) n++;
        continue;
      }
      log.info("recovering run", { run_id: run.id, state: run.state });
      this.spawn(run.id, async () => this.rt.runner.resumeHandle(this.rt.agent(run.agentName), { runId: run.id, threadId: run.threadId }));
      n++;
    }
    return n;
  }

  activeCount() {
    return this.tracked.size;
  }

  // Resolves when every run started by this executor has stopped (for tests, benchmarks and shutdown).
  async idle(): Promise<void> {
    while (this.tasks.size) await Promise.allSettled([...this.tasks]);
  }

  private claim(runId: string, from: string): Promise<boolean> {
    return claimRun(this.db, runId, from);
  }

  private spawn(runId: string, open: () => Promise<RunHandle>) {
    this.tracked.add(runId);
    const task = (async () => {
      let result: AgentResult;
      try {
        const h = await open();
        this.active.set(runId, h);
        result = await h.awaitResult();
      } catch (e) {
        // Corruption or a mismatched agent: the run cannot go on; say why on its row.
        const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        log.error("run could not execute", { run_id: runId, error });
        await this.settle(runId);
        await setRunState(this.db, runId, { state: "failed", error, finishedAt: new Date() });
        return;
      }
      await this.settle(runId);
      await finishRunRow(this.db, runId, {
        state: result.state,
        step: result.stateSnapshot.step,
        model: result.normalizedModel,
        totalTokens: result.usage.totalTokens,
        costUsd: result.totalCostUsd,
        error: result.error,
        phase: result.state === "paused" ? "paused" : isTerminal(result.state) ? "run_terminal" : undefined,
        finishedAt: isTerminal(result.state) ? new Date() : null,
      });
      log.info("run stopped", { run_id: runId, state: result.state, step: result.stateSnapshot.step });
      if (result.state === "paused" && this.opts.webhook) await notifyPaused(this.db, this.opts.webhook, runId, result.pendingApprovals);
    })()
      .catch((e) => log.error("run bookkeeping failed", { run_id: runId, error: String(e) }))
      .finally(() => {
        this.active.delete(runId);
        this.tracked.delete(runId);
        this.tasks.delete(task);
      });
    this.tasks.add(task);
  }

  private onEvent(e: RunEvent) {
    if (e.type === "checkpoint") log.debug("checkpoint", { run_id: e.runId, phase: e.data.phase, step: e.step });
    if (!this.tracked.has(e.runId)) return; // subagent runs have no Run row
    const patch: RowPatch = { step: e.step };
    if (e.type === "checkpoint" && typeof e.data.phase === "string") patch.phase = e.data.phase;
    this.patches.set(e.runId, { ...this.patches.get(e.runId), ...patch });
    if (!this.writing.has(e.runId)) this.writing.set(e.runId, this.drain(e.runId));
  }

  private async drain(runId: string) {
    try {
      for (let p = this.patches.get(runId); p; p = this.patches.get(runId)) {
        this.patches.delete(runId);
        // Terminal and paused states are written from the run's result, not from events.
        await updateRunProgress(this.db, runId, p);
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
