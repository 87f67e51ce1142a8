// Reading a run back: the latest checkpoint, validated; a stored terminal result; the runtime snapshot.
import { listStored, readStored } from "./read.ts";
import { AgentCheckpointCorruptionError } from "./errors.ts";
import { type CheckpointRecord, normalizeCheckpointRecord, readCheckpoints } from "./checkpoint.ts";
import { type AgentResult, agentResultSchema } from "./result.ts";
import { type MemoryStore, checkpointLatestKey, keys } from "./store.ts";

/** The validated latest checkpoint of a run; none is an AgentCheckpointCorruptionError (checkpoint-schema.md, "resume"). */
export async function loadLatestCheckpoint(store: MemoryStore, threadId: string, runId: string): Promise<CheckpointRecord> {
  const rec = await readLatestCheckpoint(store, threadId, runId);
  if (!rec) throw new AgentCheckpointCorruptionError(`No checkpoint for run ${runId}`, checkpointLatestKey(runId));
  return rec;
}

/** The latest checkpoint, validated; null when the run has written none yet (absent is not corrupt here). */
export async function readLatestCheckpoint(store: MemoryStore, threadId: string, runId: string): Promise<CheckpointRecord | null> {
  const key = checkpointLatestKey(runId);
  const raw = await readStored(store, threadId, key, "Latest checkpoint");
  if (raw === undefined) return null;
  if (raw === null) throw new AgentCheckpointCorruptionError(`No checkpoint for run ${runId}`, key);
  const rec = normalizeCheckpointRecord(raw, key);
  if (rec.run_id !== runId) throw new AgentCheckpointCorruptionError(`Latest checkpoint belongs to run ${rec.run_id}`, key);
  if (rec.thread_id !== threadId) throw new AgentCheckpointCorruptionError(`Latest checkpoint belongs to thread ${rec.thread_id}`, key);
  return rec;
}

/** The AgentResult a run_terminal checkpoint carries, or null for any other checkpoint. */
export function terminalResultOf(rec: CheckpointRecord): AgentResult | null {
  if (rec.phase !== "run_terminal") return null;
  const key = checkpointLatestKey(rec.run_id);
  if (rec.payload.terminal_result === undefined)
    throw new AgentCheckpointCorruptionError("run_terminal checkpoint has no terminal_result", key);
  const parsed = agentResultSchema.safeParse(rec.payload.terminal_result);
  if (!parsed.success) throw new AgentCheckpointCorruptionError("terminal_result cannot be deserialized", key);
  return parsed.data;
}

/** Every checkpoint record of a run, in write order, validated; an unreadable one throws (the first in key order). */
export async function listCheckpoints(store: MemoryStore, threadId: string, runId: string): Promise<CheckpointRecord[]> {
  const entries = await listStored(store, threadId, keys.checkpointPrefix(runId), "checkpoint record");
  return readCheckpoints(entries.filter((e) => !e.key.endsWith(":latest"))).map((r) => {
    if (r instanceof AgentCheckpointCorruptionError) throw r;
    return r;
  });
}
