import { AgentCheckpointCorruptionError } from "./errors.ts";
import type { MemoryStore } from "./store.ts";

// Reads one stored value; text that is not JSON is corruption of the named record, not a SyntaxError.
export async function readStored(store: MemoryStore, threadId: string, key: string, what: string): Promise<unknown> {
  try {
    return await store.getState(threadId, key);
  } catch (e) {
    if (e instanceof SyntaxError) throw new AgentCheckpointCorruptionError(`${what} is not valid JSON`, key);
    throw e;
  }
}

// Lists stored values under a prefix; unparseable JSON is corruption, named by the prefix.
export async function listStored(store: MemoryStore, threadId: string, prefix: string, what: string) {
  try {
    return await store.listState(threadId, prefix);
  } catch (e) {
    if (e instanceof SyntaxError) throw new AgentCheckpointCorruptionError(`A ${what} is not valid JSON`, prefix);
    throw e;
  }
}
