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

// Storage v2 of an effect record: what its key holds (run_id, step, tool_call_id) left out, the others
// under short names, the hashes as base64url (43 characters, not 64), error and success only when not
// null and true. It reads back as the same v1 record; plain records (earlier versions) read as before.
const storedEffectSchema = z.object({
  v: z.literal(2),
  n: z.string(),
  o: z.unknown(),
  e: z.string().optional(),
  ok: z.literal(false).optional(),
  t: z.number().int(),
  i: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  h: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
});
type StoredEffectBody = z.infer<typeof storedEffectSchema>;

// effect:{run}:{step}:{toolCallId} (keys.effect); a tool call id may hold ':'.
const EFFECT_KEY = /^effect:([^:]+):(\d+):(.+)$/;
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The value the runner queues for an effect's key: the record's fields as they are (what a store projects),
 * and, as its JSON (toJSON), its storage v2 body; a record the key does not describe is queued plain.
 */
export function storedEffect(key: string, e: EffectRecord): EffectRecord {
  const m = EFFECT_KEY.exec(key);
  const fits =
    m !== null &&
    m[1] === e.run_id &&
    Number(m[2]) === e.step &&
    m[3] === e.tool_call_id &&
    e.schema_version === EFFECT_SCHEMA_VERSION &&
    HEX64.test(e.input_hash) &&
    HEX64.test(e.output_hash);
  if (!fits) return e;
  return Object.defineProperty({ ...e }, "toJSON", {
    value(): StoredEffectBody {
      const b: StoredEffectBody = { v: 2, n: e.tool_name, o: e.output, t: e.timestamp_ms, i: b64(e.input_hash), h: b64(e.output_hash) };
      if (e.error !== null) b.e = e.error;
      if (!e.success) b.ok = false;
      return b;
    },
  });
}

const b64 = (hex: string) => Buffer.from(hex, "hex").toString("base64url");
const hex = (b64url: string) => Buffer.from(b64url, "base64url").toString("hex");

function decodeEffect(raw: unknown, key: string): unknown {
  if (raw === null || typeof raw !== "object" || (raw as { v?: unknown }).v !== 2) return raw;
  const m = EFFECT_KEY.exec(key);
  const parsed = storedEffectSchema.safeParse(raw);
  if (!m || !parsed.success) throw new AgentCheckpointCorruptionError("Effect record is malformed", key);
  const b = parsed.data;
  return {
    schema_version: EFFECT_SCHEMA_VERSION,
    run_id: m[1],
    step: Number(m[2]),
    tool_call_id: m[3],
    tool_name: b.n,
    output: b.o,
    error: b.e ?? null,
    success: b.ok ?? true,
    timestamp_ms: b.t,
    input_hash: hex(b.i),
    output_hash: hex(b.h),
  };
}

// A stored successful effect for this call with the same input is returned for replay. A stored effect with
// a different input for the same tool call id means the run is not what it was: an integrity error.
function parseEffect(raw: unknown, key: string): EffectRecord {
  const parsed = effectRecordSchema.safeParse(decodeEffect(raw, key));
  if (!parsed.success) throw new AgentCheckpointCorruptionError("Effect record is malformed", key);
  if (parsed.data.output_hash !== effectOutputHash(parsed.data.output))
    throw new AgentCheckpointCorruptionError("Effect output does not match its output_hash", key);
  return parsed.data;
}

/**
 * The stored effects of a run, or of one step, validated: a resume reads only the effects of the step it
 * re-enters (the latest checkpoint's; the post_llm snapshot is durable before a step's tools run, so no
 * effect is newer than the latest checkpoint's step).
 */
export async function validateEffects(store: MemoryStore, threadId: string, runId: string, step?: number): Promise<EffectRecord[]> {
  const prefix = step === undefined ? keys.effectPrefix(runId) : keys.effectStepPrefix(runId, step);
  const entries = await listStored(store, threadId, prefix, "effect record");
  return entries.map((e) => parseEffect(e.value, e.key));
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
