// The effect journal: every executed tool call's result, keyed by run, step and tool call id, so that a
// resumed run replays it instead of executing the tool again.
import { listStored, readStored } from "./read.ts";
import { z } from "zod";
import { SCHEMA_VERSIONS, versionField } from "./versions.ts";
import { hashOf } from "./canonical.ts";
import { AgentCheckpointCorruptionError, AgentEffectIntegrityError } from "./errors.ts";
import { type MemoryStore, keys } from "./store.ts";

export const EFFECT_SCHEMA_VERSION = SCHEMA_VERSIONS.effect;

export const effectRecordSchema = z.object({
  schema_version: versionField("effect"),
  run_id: z.string(),
  step: z.number().int(),
  tool_call_id: z.string(),
  tool_name: z.string(),
  input_hash: z.string().length(64),
  output_hash: z.string().length(64),
  output: z.unknown(),
  error: z.string().nullable(),
  success: z.boolean(),
  timestamp_ms: z.number().int(),
});
export type EffectRecord = z.infer<typeof effectRecordSchema>;

/** The effect journal's input hash: sha256 of the canonical JSON of {tool_name, args} (afk-runtime.md, "Effect journal"). */
export const effectInputHash = (toolName: string, args: unknown) => hashOf({ tool_name: toolName, args });
/** The effect journal's output hash: sha256 of the canonical JSON of {output}. */
export const effectOutputHash = (output: unknown) => hashOf({ output });

/** An effect record for one executed tool call, with its input and output hashes. */
export function makeEffect(e: Omit<EffectRecord, "schema_version" | "input_hash" | "output_hash"> & { args: unknown }): EffectRecord {
  const { args, ...rest } = e;
  return {
    schema_version: EFFECT_SCHEMA_VERSION,
    ...rest,
    input_hash: effectInputHash(e.tool_name, args),
    output_hash: effectOutputHash(e.output),
  };
}

// A stored successful effect for this call with the same input is returned for replay. A stored effect with
// a different input for the same tool call id means the run is not what it was: an integrity error.
function parseEffect(raw: unknown, key: string): EffectRecord {
  const parsed = effectRecordSchema.safeParse(raw);
  if (!parsed.success) throw new AgentCheckpointCorruptionError("Effect record is malformed", key);
  if (parsed.data.output_hash !== effectOutputHash(parsed.data.output))
    throw new AgentCheckpointCorruptionError("Effect output does not match its output_hash", key);
  return parsed.data;
}

/** Every effect of a run, validated: resume checks them all before it writes or calls anything. */
/**
 * Validates the stored effects of a run, or of one step: a resume reads only the effects of the step it
 * re-enters (the latest checkpoint's; the post_llm snapshot is durable before a step's tools run, so no
 * effect is newer than the latest checkpoint's step).
 */
export async function validateEffects(store: MemoryStore, threadId: string, runId: string, step?: number): Promise<number> {
  const prefix = step === undefined ? keys.effectPrefix(runId) : keys.effectStepPrefix(runId, step);
  const entries = await listStored(store, threadId, prefix, "effect record");
  for (const e of entries) parseEffect(e.value, e.key);
  return entries.length;
}

/** The stored effect a resumed run replays instead of executing the tool again: same tool call id, same input hash, successful. */
export async function findReplayableEffect(
  store: MemoryStore,
  threadId: string,
  runId: string,
  step: number,
  toolCallId: string,
  toolName: string,
  args: unknown,
): Promise<EffectRecord | null> {
  const key = keys.effect(runId, step, toolCallId);
  const raw = await readStored(store, threadId, key, "Effect record");
  if (raw === undefined) return null;
  const effect = parseEffect(raw, key);
  if (effect.input_hash !== effectInputHash(toolName, args)) {
    throw new AgentEffectIntegrityError(
      `Tool call ${toolCallId} was executed with different input (stored input_hash ${effect.input_hash.slice(0, 12)}…)`,
    );
  }
  return effect.success ? effect : null;
}
