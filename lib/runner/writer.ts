// Write-behind for checkpoint records. One background drain per run writes queued entries in batches
// (one round trip when the store has putStates). Entries for the same key coalesce: only the newest
// value is written. A full queue makes enqueue wait (back-pressure). Unlike the reference, a failed write
// is never swallowed: the writer becomes failed, and every later enqueue or flush throws it.
import { CheckpointWriteError } from "./errors.ts";
import type { MemoryStore, StateEntry } from "./store.ts";

export type WriterOptions = { async: boolean; maxQueue: number; coalesce: boolean };

export class CheckpointWriter {
  private queue = new Map<string, unknown>();
  private draining: Promise<void> | null = null;
  private failure: CheckpointWriteError | null = null;
  private spaceWaiters: (() => void)[] = [];
  written = 0;
  coalesced = 0;
  batches = 0;

  constructor(
    private readonly store: MemoryStore,
    private readonly threadId: string,
    private readonly opts: WriterOptions,
  ) {}

  get failed(): CheckpointWriteError | null {
    return this.failure;
  }

  async enqueue(key: string, value: unknown, coalescable = true): Promise<void> {
    this.throwIfFailed();
    if (!this.opts.async) return this.writeBatch([{ key, value }]);
    if (this.queue.has(key) && (coalescable || this.opts.coalesce)) {
      // Re-inserting moves the key to the end so that the newest value is written after older entries.
      this.queue.delete(key);
      this.coalesced++;
    }
    while (this.queue.size >= this.opts.maxQueue) {
      this.kick();
      await new Promise<void>((r) => this.spaceWaiters.push(r));
      this.throwIfFailed();
    }
    this.queue.set(key, value);
    this.kick();
  }

  // Resolves when every queued entry is durable; throws the write failure if there was one.
  // With a timeout, resolves false when the deadline passes first (the drain goes on).
  async flush(timeoutMs?: number): Promise<boolean> {
    const done = (async () => {
      while (this.draining || this.queue.size) {
        this.kick();
        await this.draining;
      }
      this.throwIfFailed();
      return true;
    })();
    if (timeoutMs === undefined) return done;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
    try {
      return await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private kick() {
    if (this.draining || this.failure || this.queue.size === 0) return;
    this.draining = (async () => {
      // Let the run loop enqueue the rest of its phase first (a macrotask: every pending microtask of the
      // loop runs before it); one batch then carries it. flush() does not wait longer than this.
      await new Promise<void>((r) => setImmediate(r));
      while (this.queue.size && !this.failure) {
        const batch = [...this.queue].map(([key, value]) => ({ key, value }));
        this.queue.clear();
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

  private async writeBatch(batch: StateEntry[]) {
    try {
      if (this.store.putStates && batch.length > 1) await this.store.putStates(this.threadId, batch);
      else for (const e of batch) await this.store.putState(this.threadId, e.key, e.value);
      this.written += batch.length;
      this.batches++;
    } catch (e) {
      this.failure ??= new CheckpointWriteError(`Checkpoint write failed: ${e instanceof Error ? e.message : String(e)}`, e);
      this.queue.clear();
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
