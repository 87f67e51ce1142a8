// Where a store's approvals are: its own port (approval-port.ts), or values under the runner's approval keys
// (KeyValueApprovals below), the seed's key contract, for any other MemoryStore.
import type { ApprovalRow, ApprovalStore, StoredApproval } from "./approval-port.ts";
import { parseApprovalId } from "./ids.ts";
import { StoredValueSyntaxError } from "./read.ts";
import { type MemoryStore, keys } from "./store.ts";

/** The store key an approval id names (ids without a step are the legacy format). */
export function approvalKey(id: string): string | null {
  const p = parseApprovalId(id);
  if (!p) return null;
  return p.step === null ? keys.legacyApproval(p.runId, p.toolCallId) : keys.approval(p.runId, p.step, p.toolCallId);
}

/** The name an approval record goes by in errors (its key in the seed's key contract). */
export const approvalName = (id: string) => approvalKey(id) ?? `approval:${id}`;

// Approvals as values of a MemoryStore under the runner's keys: the compare-and-set is the store's own. Each
// read and write is the store's one call (no extra await): tools running in parallel interleave their
// writes exactly as when approvals were read through the store directly.
class KeyValueApprovals implements ApprovalStore {
  constructor(private readonly store: MemoryStore) {}

  private put(row: ApprovalRow, text: string, expected: number | undefined): Promise<boolean> {
    const key = approvalKey(row.id) ?? keys.approval(row.run_id, row.step, row.tool_call_id);
    const value = JSON.parse(text) as unknown;
    if (this.store.compareAndPut) return this.store.compareAndPut(row.thread_id, key, expected, value);
    return this.store.putState(row.thread_id, key, value).then(() => true);
  }

  create(row: ApprovalRow, text: string) {
    return this.put(row, text, undefined);
  }

  compareAndSet(row: ApprovalRow, text: string, expectedVersion: number) {
    return this.put(row, text, expectedVersion);
  }

  get(threadId: string, id: string): Promise<StoredApproval | undefined> {
    const key = approvalKey(id);
    if (!key) return Promise.resolve(undefined);
    return this.store.getState(threadId, key).then(
      (v) => (v === undefined ? undefined : { id, key, text: JSON.stringify(v) }),
      (e: unknown) => named(e, key),
    );
  }

  list(threadId: string, runId: string, scope: "run" | "tree"): Promise<StoredApproval[]> {
    const read = (prefix: string) =>
      this.store.listState(threadId, prefix).then(
        (entries) => entries.map((e) => ({ id: e.key.slice("approval:".length), key: e.key, text: e.text ?? JSON.stringify(e.value) })),
        (e: unknown) => named(e, prefix),
      );
    if (scope === "run") return read(keys.approvalPrefix(runId));
    return read(keys.approvalPrefix(runId)).then(async (own) => [...own, ...(await read(keys.descendantApprovalPrefix(runId)))]);
  }
}

// A value that is not JSON is named by its key, as the store found it.
function named(e: unknown, key: string): never {
  if (e instanceof SyntaxError && typeof (e as { key?: unknown }).key !== "string") throw new StoredValueSyntaxError(e.message, key);
  throw e;
}

const kv = new WeakMap<MemoryStore, ApprovalStore>();

/** The approvals port of a store: its own, or its values under the runner's keys. */
export function approvalStoreOf(store: MemoryStore): ApprovalStore {
  if (store.approvals) return store.approvals;
  const kept = kv.get(store);
  if (kept) return kept;
  const made = new KeyValueApprovals(store);
  kv.set(store, made);
  return made;
}
