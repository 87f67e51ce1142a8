// Write-behind for checkpoint records (checkpoint-schema.md, "Async write-behind behavior"). One background
// drain per run writes queued entries in batches (one round trip when the store has putStates). A full
// queue makes enqueue wait (back-pressure). Only runtime-snapshot writes coalesce, and only with
// checkpointCoalesceRuntimeState: a queued snapshot not yet in flight is replaced by the newer one. Every
// other entry (checkpoint records, the latest pointer, effects, log entries) is written, in order.
// Unlike the reference (afk-runtime.md, flaw 2), a failed write is never swallowed: the writer becomes
// failed, and every later enqueue or flush throws it.
import { CheckpointWriteError, LeaseLostError } from "./errors.ts";
import type { MemoryStore, StateEntry } from "./store.ts";

/**
 * async: write behind (queue) or through; maxQueue: back-pressure bound; coalesce: only the newest runtime snapshot of a key is written.
 */
export type WriterOptions = { async: boolean; maxQueue: number; coalesce: boolean };

type Queued = StateEntry & { coalescable: boolean };

/**
 * The write-behind writer (checkpoint-schema.md, "Write-behind"): one background drain of a bounded queue, batches through putStates,
 * flush() for durable points and a bounded terminal flush.
 */
export class CheckpointWriter {
  private queue: Queued[] = [];
  private draining: Promise<void> | null = null;
  private failure: CheckpointWriteError | LeaseLostError | null = null;
  private spaceWaiters: (() => void)[] = [];
  written = 0;
  coalesced = 0;
  batches = 0;

  constructor(
    private readonly store: MemoryStore,
    private readonly threadId: string,
    private readonly opts: WriterOptions,
  ) {}

  get failed(): CheckpointWriteError | LeaseLostError | null {
    return this.failure;
  }

  get queued(): number {
    return this.queue.length;
  }

  /**
   * coalescable: a runtime snapshot, which a newer snapshot of the same key may replace while queued.
   * text: the value's JSON text when the caller has it already (a log entry's canonical form).
   * A promise only when the caller has to wait (a full queue, a writer that writes through) or the writer
   * has failed (rejected with the failure); otherwise the entry is queued and nothing is returned: callers
   * await only what they are given (a step queues about eight entries; an await makes promises even of
   * nothing).
   */
  enqueue(key: string, value: unknown, opts: { coalescable?: boolean; text?: string } = {}): Promise<void> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    const { coalescable = false, text } = opts;
    if (!this.opts.async) return this.writeBatch([{ key, value, text }]);
    if (coalescable && this.opts.coalesce) {
      const i = this.queue.findIndex((q) => q.coalescable && q.key === key);
      if (i >= 0) {
        // The older snapshot is dropped and the newer one goes to the end, after everything it describes.
        this.queue.splice(i, 1);
        this.coalesced++;
      }
    }
    const entry = { key, value, text, coalescable };
    if (this.queue.length >= this.opts.maxQueue) return this.whenRoom(entry);
    this.queue.push(entry);
    this.kick();
  }

  /** enqueue() of several entries in order; a promise only when one of them has to wait. */
  enqueueAll(entries: (StateEntry & { coalescable?: boolean })[]): Promise<void> | undefined {
    for (let i = 0; i < entries.length; i++) {
      const wait = this.enqueue(entries[i].key, entries[i].value, entries[i]);
      if (wait) return i + 1 < entries.length ? wait.then(() => this.enqueueAll(entries.slice(i + 1))) : wait;
    }
  }

  // Back-pressure: the entry joins the queue once the drain has made room.
  private async whenRoom(entry: Queued) {
    while (this.queue.length >= this.opts.maxQueue) {
      this.kick();
      await new Promise<void>((r) => this.spaceWaiters.push(r));
      this.throwIfFailed();
    }
    this.queue.push(entry);
    this.kick();
  }

  /**
   * Resolves when every queued entry is durable; throws the write failure if there was one.
   * With a timeout, resolves false when the deadline passes first (the drain goes on).
   */
  flush(timeoutMs?: number): Promise<boolean> {
    const done = this.drained();
    return timeoutMs === undefined ? done : this.within(done, timeoutMs);
  }

  private async drained(): Promise<boolean> {
    while (this.draining || this.queue.length) {
      this.kick();
      await this.draining;
      this.throwIfFailed();
    }
    this.throwIfFailed();
    return true;
  }

  private async within(done: Promise<boolean>, timeoutMs: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
    try {
      return await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private kick() {
    if (this.draining || this.failure || this.queue.length === 0) return;
    this.draining = (async () => {
      // Let the run loop enqueue the rest of its phase first (a macrotask: every pending microtask of the
      // loop runs before it); one batch then carries it. flush() does not wait longer than this.
      await new Promise<void>((r) => setImmediate(r));
      while (this.queue.length && !this.failure) {
        const batch = this.queue.map(({ key, value, text }) => ({ key, value, text }));
        this.queue = [];
        this.wakeSpaceWaiters();
        try {
          await this.writeBatch(batch);
        } catch {
          // writeBatch has recorded the failure.
        }
      }
      this.draining = null;
      this.wakeSpaceWaiters();
    })();
  }

  // A batch is written in order; a store's putStates applies it as one statement, where a key written
  // twice in the batch (the latest pointer) ends with its last value, exactly as sequential writes would.
  private async writeBatch(batch: StateEntry[]) {
    try {
      if (this.store.putStates) await this.store.putStates(this.threadId, batch);
      else for (const e of batch) await this.store.putState(this.threadId, e.key, e.value);
      this.written += batch.length;
      this.batches++;
    } catch (e) {
      this.failure ??=
        e instanceof LeaseLostError
          ? e
          : new CheckpointWriteError(`Checkpoint write failed: ${e instanceof Error ? e.message : String(e)}`, e);
      this.queue = [];
      throw this.failure;
    }
  }

  private wakeSpaceWaiters() {
    const w = this.spaceWaiters;
    this.spaceWaiters = [];
    for (const r of w) r();
  }

  private throwIfFailed() {
    if (this.failure) throw this.failure;
  }
}
