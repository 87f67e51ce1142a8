// Stored text planted as it is, for the tests of what the runner does with a record it cannot read (a
// corrupt one, one an earlier version wrote): InMemoryStore keeps JSON text, and putStates writes an
// entry's text verbatim.
import { InMemoryStore } from "../../lib/runner/index.ts";

/**
 * Stores `text` under `key` exactly as given. It goes through InMemoryStore's own putStates, not one a test
 * put on the instance to count writes, and leaves the store's write counter as it was: a planted record is
 * not a write of the runner's.
 */
export async function putRaw(store: InMemoryStore, threadId: string, key: string, text: string): Promise<void> {
  const writes = store.writes;
  await InMemoryStore.prototype.putStates.call(store, threadId, [{ key, value: undefined, text }]);
  store.writes = writes;
}
