// The approvals port: how the runner stores its approval requests (as LangGraph's BaseCheckpointSaver types
// its saver). A database gives its own (lib/db/approvals.ts: a typed table); any other MemoryStore keeps
// them as values under the runner's approval keys (approval-store.ts). Records go in and come out as stored
// text: lib/runner/approvals.ts serializes and validates them, so every implementation returns exactly what
// was written and corruption is found by one reader.

/** What a store keeps of one approval request: its record as written, and the name errors give it (its key). */
export type StoredApproval = { id: string; key: string; text: string };

/** The projection a store may index (the record's own fields, read by the runner before it writes). */
export type ApprovalRow = {
  id: string;
  thread_id: string;
  run_id: string;
  root_run_id: string;
  step: number;
  tool_call_id: string;
  kind: string;
  agent_name: string;
  tool_name: string;
  status: string;
  version: number;
  groups: readonly string[];
  requested_at_ms: number;
  deadline_ms: number | null;
  decided_at_ms: number | null;
  decisions: readonly { by: string; decision: string }[];
};

export interface ApprovalStore {
  /** Stores a new request; false when one with its id exists already (nothing written). */
  create(row: ApprovalRow, text: string): Promise<boolean>;
  /** Replaces the request stored at `expectedVersion` with this one; false when another writer got there first. */
  compareAndSet(row: ApprovalRow, text: string, expectedVersion: number): Promise<boolean>;
  /** One request by id; undefined when there is none. */
  get(threadId: string, id: string): Promise<StoredApproval | undefined>;
  /** The requests of one run (`tree`: and of its subagent runs, at any depth), by run, step and call. */
  list(threadId: string, runId: string, scope: "run" | "tree"): Promise<StoredApproval[]>;
}
