import { z } from "zod";
import { AgentCheckpointCorruptionError } from "./errors.ts";
import { isStoredV2 } from "./record-codec.ts";
import { decodeCheckpointEntries, decodeStandalone } from "./record-read.ts";
import { SCHEMA_VERSIONS, isReadableVersion } from "./versions.ts";

export const CHECKPOINT_SCHEMA_VERSION = SCHEMA_VERSIONS.checkpoint;

export const PHASES = [
  "run_started",
  "step_started",
  "pre_llm",
  "post_llm",
  "pre_tool_batch",
  "post_tool_batch",
  "pre_subagent_batch",
  "post_subagent_batch",
  "paused",
  "resumed",
  "run_terminal",
] as const;
export type Phase = (typeof PHASES)[number];

/** Phases whose checkpoint is written together with a runtime snapshot (afk-runtime.md, order within a step). */
export const SNAPSHOT_PHASES = ["run_started", "step_started", "post_llm", "post_tool_batch"] as const satisfies readonly Phase[];

export const checkpointRecordSchema = z.object({
  schema_version: z.literal(CHECKPOINT_SCHEMA_VERSION),
  run_id: z.string().min(1),
  thread_id: z.string().min(1),
  step: z.number().int().nonnegative(),
  phase: z.enum(PHASES),
  timestamp_ms: z.number().int().nonnegative(),
  /** Write order within the run, across restarts (not in checkpoint-schema.md; legacy records have none). */
  seq: z.number().int().nonnegative().default(0),
  payload: z.record(z.string(), z.unknown()),
});
export type CheckpointRecord = z.infer<typeof checkpointRecordSchema>;

/**
 * A stored record read alone: storage v2 (record-codec.ts) when stored whole (the latest pointer, a
 * window's first record; a delta is read with its window, readCheckpoints), else a plain object. Legacy
 * formats: camelCase keys, `data` for payload, `version`/`schemaVersion` for schema_version (missing means
 * v1). Anything but a plain object is corruption; an unknown version is corruption.
 */
export function normalizeCheckpointRecord(stored: unknown, key?: string): CheckpointRecord {
  const raw = isStoredV2(stored) ? decodeStandalone(stored, key) : stored;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new AgentCheckpointCorruptionError("Checkpoint record is not an object", key);
  }
  const r = raw as Record<string, unknown>;
  const version = r.schema_version ?? r.schemaVersion ?? r.version ?? CHECKPOINT_SCHEMA_VERSION;
  if (typeof version !== "string" && typeof version !== "number") {
    throw new AgentCheckpointCorruptionError("Checkpoint schema_version is not a string", key);
  }
  if (!isReadableVersion("checkpoint", version)) {
    throw new AgentCheckpointCorruptionError(`Unsupported checkpoint schema_version ${JSON.stringify(version)}`, key);
  }
  const candidate = {
    schema_version: CHECKPOINT_SCHEMA_VERSION,
    run_id: r.run_id ?? r.runId,
    thread_id: r.thread_id ?? r.threadId,
    step: r.step ?? 0,
    phase: r.phase,
    timestamp_ms: r.timestamp_ms ?? r.timestampMs ?? 0,
    seq: r.seq ?? 0,
    payload: r.payload ?? r.data,
  };
  const parsed = checkpointRecordSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentCheckpointCorruptionError(`Checkpoint field ${issue.path.join(".") || "record"} is invalid: ${issue.message}`, key);
  }
  return parsed.data;
}

const PHASE_SET = new Set<string>(PHASES);

/**
 * Stored records of one run (parsed JSON), each validated, in the order given; the storage v2 deltas among
 * them are read from the records before them in their window, which must be among the entries. A record
 * that cannot be read (or whose window cannot) is an AgentCheckpointCorruptionError naming its key.
 */
export function readCheckpoints(
  entries: readonly { key: string; value: unknown }[],
): (CheckpointRecord | AgentCheckpointCorruptionError)[] {
  const decoded = entries.some((e) => isStoredV2(e.value)) ? decodeCheckpointEntries(entries) : null;
  return entries.map((e, i) => {
    const d = decoded?.[i];
    if (d instanceof AgentCheckpointCorruptionError) return d;
    // A storage v2 record was validated as stored (record-read.ts): its run, step, seq and phase come from
    // its key, its time and payload from the checked body; what remains is the phase's name.
    if (d !== undefined)
      return PHASE_SET.has(d.phase)
        ? (d as CheckpointRecord)
        : new AgentCheckpointCorruptionError(`Checkpoint field phase is invalid: ${d.phase}`, e.key);
    try {
      return normalizeCheckpointRecord(e.value, e.key);
    } catch (err) {
      if (err instanceof AgentCheckpointCorruptionError) return err;
      throw err;
    }
  });
}
