import { z } from "zod";
import { AgentCheckpointCorruptionError } from "./errors.ts";

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
 * Legacy formats: camelCase keys, `data` for payload, `version`/`schemaVersion` for schema_version
 * (missing means v1). Anything but a plain object is corruption; an unknown version is corruption.
 */
export function normalizeCheckpointRecord(raw: unknown, key?: string): CheckpointRecord {
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
