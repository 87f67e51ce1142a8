/**
 * text: the value's JSON text. A writer that already serialized the value (log entries, in canonical form)
 * passes it and the store writes it verbatim; listState returns the text it read, so that a log's digest
 * chain can be checked over the stored text without serializing every entry again.
 */
export type StateEntry = { key: string; value: unknown; text?: string };

/**
 * The storage contract of the runner, as in checkpoint-schema.md (memory.get_state/put_state): state values scoped by thread and key.
 * putStates is optional: a store that can write many entries in one round trip lets the write-behind
 * writer drain its queue in batches.
 */
export interface MemoryStore {
  getState(threadId: string, key: string): Promise<unknown | undefined>;
  putState(threadId: string, key: string, value: unknown): Promise<void>;
  listState(threadId: string, prefix: string): Promise<StateEntry[]>;
  deleteState(threadId: string, key: string): Promise<void>;
  putStates?(threadId: string, entries: StateEntry[]): Promise<void>;
  /**
   * The stored texts of the entries under a prefix (the first `limit` when given), in key order, without
   * their keys: what a resume reads of a run's logs (3,000 entries for 1,000 steps), whose keys only
   * count. Optional: readers fall back to listState.
   */
  listTexts?(threadId: string, prefix: string, limit?: number): Promise<string[]>;
  /**
   * Writes value only when the stored value's `version` field equals expectedVersion (undefined = absent).
   * Returns false when another writer got there first. Used for approval decisions.
   */
  compareAndPut?(threadId: string, key: string, expectedVersion: number | undefined, value: unknown): Promise<boolean>;
  /**
   * A fenced store (one execution's view of a run it claimed) throws LeaseLostError from every write once
   * the claim is no longer current, and from assertFence. The runner calls assertFence before each tool,
   * so a worker that stalled past its lease stops before it executes anything more.
   */
  assertFence?(): Promise<void>;
  /** Where approval requests live; without one they are values under the runner's approval keys. */
  approvals?: ApprovalStore;
}

import type { ApprovalStore } from "./approval-port.ts";

export { checkpointCursor, checkpointLatestKey, keys, parseKey, type KeyKind, type ParsedKey } from "./keys.ts";

/**
 * Values are stored as JSON text by every real store; the in-memory one keeps the same discipline so that
 * tests see exactly what a database would return (no shared object references).
 */
export class InMemoryStore implements MemoryStore {
  private readonly data = new Map<string, Map<string, string>>();
  writes = 0;

  private thread(threadId: string) {
    let t = this.data.get(threadId);
    if (!t) {
      t = new Map();
      this.data.set(threadId, t);
    }
    return t;
  }

  async getState(threadId: string, key: string) {
    const v = this.data.get(threadId)?.get(key);
    return v === undefined ? undefined : JSON.parse(v);
  }

  private write(threadId: string, key: string, text: string) {
    this.writes++;
    this.thread(threadId).set(key, text);
  }

  async putState(threadId: string, key: string, value: unknown) {
    this.write(threadId, key, JSON.stringify(value));
  }

  async putStates(threadId: string, entries: StateEntry[]) {
    for (const e of entries) this.write(threadId, e.key, e.text ?? JSON.stringify(e.value));
  }

  async listState(threadId: string, prefix: string) {
    const t = this.data.get(threadId);
    if (!t) return [];
    return [...t.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, text]) => ({ key, value: JSON.parse(text) as unknown, text }));
  }

  async listTexts(threadId: string, prefix: string, limit?: number) {
    const t = this.data.get(threadId);
    if (!t) return [];
    return [...t.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, limit)
      .map(([, text]) => text);
  }

  async deleteState(threadId: string, key: string) {
    this.data.get(threadId)?.delete(key);
  }

  async compareAndPut(threadId: string, key: string, expectedVersion: number | undefined, value: unknown) {
    const current = await this.getState(threadId, key);
    const version = (current as { version?: number } | undefined)?.version;
    if (version !== expectedVersion) return false;
    await this.putState(threadId, key, value);
    return true;
  }
}
