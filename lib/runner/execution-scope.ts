// One execution as its phases see it: ids, agent, limits, state, and the one path of everything it writes
// (checkpoint records, log entries, the runtime snapshot, all through the write-behind writer) and of the
// events it emits. A lost lease is checked here, before each checkpoint.
import { type Agent, type FailSafe, failSafeOf } from "./agent.ts";
import { CHECKPOINT_SCHEMA_VERSION, type CheckpointRecord, type Phase } from "./checkpoint.ts";
import type { ExecutionInit, RunnerContext } from "./config.ts";
import { LeaseLostError } from "./errors.ts";
import { EVENT_SCHEMA_VERSION, type RunEvent, type RunEventType } from "./events.ts";
import { failpointArmed, fire } from "./failpoints.ts";
import type { Message } from "./messages.ts";
import type { ResolvedModel } from "./model.ts";
import type { ExecutionState } from "./execution-state.ts";
import { CheckpointChain } from "./record-codec.ts";
import type { AppendLog } from "./runtime-snapshot.ts";
import { checkpointLatestKey, keys } from "./store.ts";
import { CheckpointWriter } from "./writer.ts";

/**
 * `{ ...base, ...added }` for keys `base` does not have. V8 (Node 20) builds a copy that gains keys after a
 * spread some 30 times slower (1-2 µs) than Object.assign does, and these copies are made several times a step.
 */
export const withKeys = <A extends object, B extends object>(base: A, added: B): A & B => Object.assign({}, base, added);

/** The key of a log's i-th entry (keys.message, keys.toolExecution, keys.subagentExecution). */
export type LogKey = (runId: string, index: number) => string;

export class ExecutionScope {
  readonly agent: Agent;
  readonly runId: string;
  readonly threadId: string;
  /** The agent's fail-safe limits, defaults filled in (steps, calls, parallel tools, failure and denial policies). */
  readonly limits: FailSafe;
  readonly writer: CheckpointWriter;
  /** Aborted on cancel and on abandon; the model call and tools get its signal. */
  readonly abort = new AbortController();
  cancelRequested = false;
  abandoned = false;
  /** This execution's records as stored: windows of deltas (record-codec.ts). */
  private readonly chain = new CheckpointChain();

  constructor(
    /** What every execution of the runner shares: its store, models, config, and how to run a child. */
    readonly runner: RunnerContext,
    readonly init: ExecutionInit,
    readonly model: ResolvedModel,
    readonly state: ExecutionState,
    private readonly emit: (e: RunEvent) => void,
  ) {
    this.agent = init.agent;
    this.runId = init.runId;
    this.threadId = init.threadId;
    this.limits = failSafeOf(init.agent);
    const c = runner.config;
    this.writer = new CheckpointWriter(runner.store, init.threadId, {
      async: c.checkpointAsyncWrites,
      maxQueue: c.checkpointQueueMaxsize,
      coalesce: c.checkpointCoalesceRuntimeState,
    });
  }

  cancel() {
    this.cancelRequested = true;
    this.abort.abort(new Error("run cancelled"));
  }

  abandon() {
    this.abandoned = true;
    this.abort.abort(new LeaseLostError("lease lost"));
  }

  assertHeld() {
    if (this.abandoned) throw new LeaseLostError(`run ${this.runId}: this execution lost its lease`);
  }

  event(type: RunEventType, message: string, data: Record<string, unknown> = {}) {
    this.emit({
      type,
      runId: this.runId,
      threadId: this.threadId,
      state: this.state.snap.state,
      step: this.state.snap.step,
      message,
      data,
      schemaVersion: EVENT_SCHEMA_VERSION,
    });
  }

  /**
   * Writes one checkpoint record and the latest copy; with snapshot, the runtime snapshot too.
   * durable: returns only once everything queued so far is in the store.
   */
  async checkpoint(phase: Phase, payload: Record<string, unknown>, opts: { snapshot?: boolean; durable?: boolean } = {}) {
    this.assertHeld();
    const st = this.state;
    const record: CheckpointRecord = {
      schema_version: CHECKPOINT_SCHEMA_VERSION,
      run_id: this.runId,
      thread_id: this.threadId,
      step: st.snap.step,
      phase,
      timestamp_ms: Date.now(),
      seq: st.seq++,
      payload,
    };
    const entries: { key: string; value: unknown; coalescable?: boolean }[] = [];
    if (opts.snapshot) {
      const snap = st.toSnapshot();
      record.payload = withKeys(payload, { runtime_snapshot: snap });
      entries.push({ key: keys.runtime(this.runId), value: snap, coalescable: true });
    }
    const key = keys.checkpoint(this.runId, record.step, record.seq, phase);
    const latest = checkpointLatestKey(this.runId);
    entries.push({ key, value: this.chain.record(key, record) });
    entries.push({ key: latest, value: this.chain.latest(latest, record) });
    const wait = this.writer.enqueueAll(entries);
    if (wait) await wait;
    const fp = this.runner.config.failpoint;
    const hit = failpointArmed(fp, phase, record.step, this.agent.name);
    if (opts.durable || hit) await this.writer.flush();
    this.event("checkpoint", phase, { phase, seq: record.seq, durable: !!(opts.durable || hit) });
    if (hit) fire(fp, record.step);
  }

  /**
   * Appends to one of the run's logs and queues the entry, stored as the text its digest chains. A promise
   * only when the writer makes the caller wait (CheckpointWriter.enqueue).
   */
  append<T>(log: AppendLog<T>, key: LogKey, item: T): Promise<void> | undefined {
    const i = log.append(item);
    return this.writer.enqueue(key(this.runId, i), item, { text: log.texts[i] });
  }

  appendMessage(m: Message): Promise<void> | undefined {
    return this.append(this.state.messages, keys.message, m);
  }

  writeRuntime(): Promise<void> | undefined {
    return this.writer.enqueue(keys.runtime(this.runId), this.state.toSnapshot(), { coalescable: true });
  }
}
