// What the console reads of a run's records by what they are, not by where they are stored: the runner
// owns its keys (keys.ts), and nothing outside lib/runner builds or reads one.
import { AgentCheckpointCorruptionError } from "./errors.ts";
import { type Message, messageSchema } from "./messages.ts";
import { listStored, readStored } from "./read.ts";
import { readLatestCheckpoint } from "./resume.ts";
import { storedSnapshotSchema } from "./runtime-snapshot.ts";
import { type MemoryStore, checkpointLatestKey, keys } from "./store.ts";

/** True when a run (a subagent's included) has stored a runtime snapshot. */
export async function hasSnapshot(store: MemoryStore, threadId: string, runId: string): Promise<boolean> {
  return (await readStored(store, threadId, keys.runtime(runId), "Runtime snapshot")) !== undefined;
}

/** The agent a stored run was executing: its snapshot's, else its latest record's ("" when neither says). */
export async function storedAgentName(store: MemoryStore, threadId: string, runId: string): Promise<string> {
  const snap = await readStored(store, threadId, keys.runtime(runId), "Runtime snapshot");
  const parsed = snap === undefined ? null : storedSnapshotSchema.safeParse(snap);
  const latest = await readLatestCheckpoint(store, threadId, runId);
  return String(parsed?.success ? parsed.data.agent_name : (latest?.payload.agent_name ?? ""));
}

/** Messages `from` (included) to `to` (excluded) of a run's conversation log, validated. */
export async function readMessages(store: MemoryStore, threadId: string, runId: string, from: number, to: number): Promise<Message[]> {
  const entries = await listStored(store, threadId, keys.messagePrefix(runId), "message");
  return entries.slice(from, to).map((e) => {
    const m = messageSchema.safeParse(e.value);
    if (!m.success) throw new AgentCheckpointCorruptionError(`Message log entry is malformed (key ${e.key})`, e.key);
    return m.data;
  });
}

/** A run that has begun but has no checkpoint: corruption, named by its latest record's key. */
export const noCheckpointError = (runId: string) =>
  new AgentCheckpointCorruptionError(`No checkpoint for run ${runId}`, checkpointLatestKey(runId));
