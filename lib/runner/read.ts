import { AgentCheckpointCorruptionError } from "./errors.ts";
import type { MemoryStore } from "./store.ts";

/** A store may name the exact record whose text is not JSON (StoredValueSyntaxError); else the prefix is all we know. */
export class StoredValueSyntaxError extends SyntaxError {
  constructor(
    message: string,
    readonly key: string,
  ) {
    super(message);
  }
}

// Duck-typed: a bundler may hold two copies of this module, and instanceof would miss the other's class.
const keyOf = (e: SyntaxError) => {
  const key = (e as { key?: unknown }).key;
  return typeof key === "string" ? key : undefined;
};

/** Parses one stored value's text, naming its key when it is not JSON. */
export function parseStoredText(text: string, key: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new StoredValueSyntaxError(e instanceof Error ? e.message : String(e), key);
  }
}

/** Reads one stored value; text that is not JSON is corruption of the named record, not a SyntaxError. */
export async function readStored(store: MemoryStore, threadId: string, key: string, what: string): Promise<unknown> {
  try {
    return await store.getState(threadId, key);
  } catch (e) {
    if (e instanceof SyntaxError) throw new AgentCheckpointCorruptionError(`${what} is not valid JSON`, keyOf(e) ?? key);
    throw e;
  }
}

/** Lists stored values under a prefix; unparseable JSON is corruption, named by the prefix. */
export async function listStored(store: MemoryStore, threadId: string, prefix: string, what: string) {
  try {
    return await store.listState(threadId, prefix);
  } catch (e) {
    if (e instanceof SyntaxError)
      throw new AgentCheckpointCorruptionError(`${/^[aeiou]/i.test(what) ? "An" : "A"} ${what} is not valid JSON`, keyOf(e) ?? prefix);
    throw e;
  }
}

/**
 * Awaits reads that do not depend on each other at once (on a networked database their round trips
 * overlap); when several fail, the error thrown is the first in the given order, as if read one by one.
 */
export async function readAll<T extends readonly unknown[]>(reads: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(reads);
  for (const r of settled) if (r.status === "rejected") throw r.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
