// How checkpoint and effect records are stored. A record reads back exactly as checkpoint-schema.md and
// afk-runtime.md define it (its keys, fields and schema_version are unchanged); only its stored text is smaller:
//  - encoding "z1": the JSON string `"z1:<base64>"`, raw deflate (node:zlib) with a fixed dictionary per
//    kind of record, of a body that leaves out what the key and the run already say (a checkpoint's run_id,
//    thread_id when it is the run's id, schema_version, and for a record key step, seq and phase; an
//    effect's run_id, step and tool_call_id);
//  - a snapshot delta: a record whose runtime snapshot differs from the one before it (same execution,
//    at most SNAPSHOT_KEYFRAME_STEPS steps after the last full one) stores only the changed top-level
//    fields and the seq of that previous record. Reading resolves it (resolveSnapshotDeltas).
// A record stored as a plain object (every record written before z1, and fork's and retry's) reads as before.
// docs/performance.md has the measurements behind the choice (deltas and compression, each and together).
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { z } from "zod";
import { AgentCheckpointCorruptionError } from "./errors.ts";
import { keys } from "./keys.ts";

/** A full snapshot at least every this many steps of an execution; a delta's base is at most this far back. */
export const SNAPSHOT_KEYFRAME_STEPS = 5;

const PREFIX = "z1:";

// The z1 dictionaries: the field names and common values of each kind of record. Records written with one
// can only be read with it: changing one byte is a new encoding (z2), not an edit.
const EFFECT_DICTIONARY = Buffer.from(
  '{"schema_version":"v1","tool_name":"","output":{"ok":true},"error":null,"success":true,"timestamp_ms":1800000000000,"input_hash":"","output_hash":""}',
);
const DICTIONARY = Buffer.from(
  [
    '{"timestamp_ms":1800000000000,"payload":{"agent_name":"","resumed":false,"agent_fingerprint":"","agent_path":"","root_run_id":"",',
    '"approval_id":"","waiting_for":"approval","subagent_count":1,"subagents":[],"tool_calls_total":1,"tool_failures":0,"tool_call_count":1,',
    '"terminal_result":{"runId":"","threadId":"","state":"completed","finalText":"","finalStructured":null,"requestedModel":"",',
    '"normalizedModel":"","providerAdapter":"","toolExecutions":[{"toolName":"","toolCallId":"","success":true,"output":{},"error":null,',
    '"latencyMs":0,"agentPath":"","replayed":false,"approvedBy":[]}],"subagentExecutions":[],"usage":{"inputTokens":0,"outputTokens":0,',
    '"totalTokens":0},"totalCostUsd":0,"sessionToken":null,"checkpointToken":null,"stateSnapshot":{"state":"completed","step":1,',
    '"llmCalls":1,"toolCalls":1,"startedAtS":1800000000,"elapsedS":0,"replayedEffectCount":0},"error":null,"pendingApprovals":[]},',
    '"state":"running","message_count":1,"model":"","provider":"","finish_reason":"tool_calls","session_token":null,',
    '"checkpoint_token":null,"total_cost_usd":0,"runtime_snapshot":{"schema_version":"v1","agent_name":"","step":1,"state":"running",',
    '"context":{},"llm_calls":1,"tool_calls":1,"started_at_s":1800000000.0,"active_elapsed_s":0.0,"usage":{"input_tokens":0,',
    '"output_tokens":0,"total_tokens":0},"total_cost_usd":0,"session_token":null,"checkpoint_token":null,"pending_llm_response":',
    '{"text":"","tool_calls":[{"id":"","name":"","args":{}}],"finish_reason":"tool_calls","usage":{"input_tokens":0,"output_tokens":0,',
    '"total_tokens":0},"session_token":null,"checkpoint_token":null,"structured":null,"model":""},"requested_model":"",',
    '"normalized_model":"","provider_adapter":"","final_text":"","final_structured":null,"replayed_effect_count":0,',
    '"messages":{"count":1,"digest":""},"tool_executions":{"count":1,"digest":""},"subagent_executions":{"count":0,"digest":""}}},',
    '"snapshot_delta":{"base_seq":1,"fields":{"step":1,"state":"running","llm_calls":1,"tool_calls":1,"active_elapsed_s":0.0,',
    '"usage":{"input_tokens":0,"output_tokens":0,"total_tokens":0},"total_cost_usd":0,"pending_llm_response":null,"final_text":"",',
    '"messages":{"count":1,"digest":""},"tool_executions":{"count":1,"digest":""}}}}',
  ].join(""),
);

const deltaSchema = z.object({ base_seq: z.number().int().nonnegative(), fields: z.record(z.string(), z.unknown()) });
/** A runtime snapshot stored as its changes since the snapshot of checkpoint `base_seq` of the same run. */
export type SnapshotDelta = z.infer<typeof deltaSchema>;

const bodySchema = z.object({
  timestamp_ms: z.number().int().nonnegative(),
  payload: z.record(z.string(), z.unknown()),
  snapshot_delta: deltaSchema.optional(),
  thread_id: z.string().min(1).optional(),
  // Only in the latest pointer's body: its key does not hold them.
  step: z.number().int().nonnegative().optional(),
  seq: z.number().int().nonnegative().optional(),
  phase: z.string().optional(),
});

// checkpoint:{run}:{step}:{seq}:{phase} (keys.checkpoint) and checkpoint:{run}:latest.
const RECORD_KEY = /^checkpoint:(.+):(\d{6,}):(\d{4,}):([a-z_]+)$/;
const LATEST_KEY = /^checkpoint:(.+):latest$/;

type Plain = {
  schema_version: string;
  run_id: string;
  thread_id: string;
  step: number;
  phase: string;
  timestamp_ms: number;
  seq: number;
  payload: Record<string, unknown>;
};

/** True when a stored value is in the z1 encoding (else it is a plain record, or not a record at all). */
export const isZ1 = (raw: unknown): raw is string => typeof raw === "string" && raw.startsWith(PREFIX);

const z1 = (dictionary: Buffer, body: unknown) => `"${PREFIX}${deflateRawSync(JSON.stringify(body), { dictionary }).toString("base64")}"`;

// Node's base64 decoder skips characters outside the alphabet; a stored text with any is corrupt.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function unz1(dictionary: Buffer, raw: string, bad: (why: string) => Error): unknown {
  if (!BASE64.test(raw.slice(PREFIX.length))) throw bad("is not base64");
  try {
    return JSON.parse(inflateRawSync(Buffer.from(raw.slice(PREFIX.length), "base64"), { dictionary }).toString("utf8"));
  } catch {
    throw bad("cannot be decompressed");
  }
}

/**
 * The stored text (JSON) of checkpoint record `r` under `key`; with `delta`, its payload's runtime_snapshot
 * is stored as that delta instead. A record the key does not describe is stored plain.
 */
export function encodeCheckpoint(key: string, r: Plain, delta?: SnapshotDelta): string {
  const m = RECORD_KEY.exec(key) ?? LATEST_KEY.exec(key);
  const described = m && m[1] === r.run_id && (m.length === 2 || (Number(m[2]) === r.step && Number(m[3]) === r.seq && m[4] === r.phase));
  if (!described || r.schema_version !== "v1") return JSON.stringify(r);
  const body: Record<string, unknown> = { timestamp_ms: r.timestamp_ms, payload: r.payload };
  if (delta) {
    const { runtime_snapshot: _s, ...rest } = r.payload;
    body.payload = rest;
    body.snapshot_delta = delta;
  }
  if (r.thread_id !== r.run_id) body.thread_id = r.thread_id;
  if (m.length === 2) Object.assign(body, { step: r.step, seq: r.seq, phase: r.phase });
  return z1(DICTIONARY, body);
}

/**
 * The plain record a z1 value encodes, to be validated as any stored record is; a snapshot delta is left
 * in its payload as `snapshot_delta` for resolveSnapshotDeltas. Anything undecodable is corruption of `key`.
 */
export function decodeCheckpoint(raw: string, key: string | undefined): Record<string, unknown> {
  const bad = (why: string) => new AgentCheckpointCorruptionError(`Checkpoint record (z1) ${why}`, key);
  const m = key === undefined ? null : (RECORD_KEY.exec(key) ?? LATEST_KEY.exec(key));
  if (!m) throw bad("is stored under a key that is not a checkpoint key");
  const parsed = bodySchema.safeParse(unz1(DICTIONARY, raw, bad));
  if (!parsed.success) throw bad(`field ${parsed.error.issues[0].path.join(".") || "body"} is invalid`);
  const b = parsed.data;
  const runId = m[1];
  const where = m.length === 5 ? { step: Number(m[2]), seq: Number(m[3]), phase: m[4] } : { step: b.step, seq: b.seq, phase: b.phase };
  const payload = b.snapshot_delta ? { ...b.payload, snapshot_delta: b.snapshot_delta } : b.payload;
  return { schema_version: "v1", run_id: runId, thread_id: b.thread_id ?? runId, ...where, timestamp_ms: b.timestamp_ms, payload };
}

// effect:{run}:{step}:{toolCallId} (keys.effect).
const EFFECT_KEY = /^effect:([^:]+):(\d{6,}):(.+)$/;
type PlainEffect = { schema_version: string; run_id: string; step: number; tool_call_id: string };

/** The stored text (JSON) of effect record `e` under `key`; one the key does not describe is stored plain. */
export function encodeEffect(key: string, e: PlainEffect): string {
  const m = EFFECT_KEY.exec(key);
  if (!m || m[1] !== e.run_id || Number(m[2]) !== e.step || m[3] !== e.tool_call_id || e.schema_version !== "v1") return JSON.stringify(e);
  const { run_id: _r, step: _s, tool_call_id: _t, ...body } = e;
  return z1(EFFECT_DICTIONARY, body);
}

/** The plain effect record a z1 value encodes (to be validated by its schema); undecodable is corruption of `key`. */
export function decodeEffect(raw: string, key: string): unknown {
  const bad = (why: string) => new AgentCheckpointCorruptionError(`Effect record (z1) ${why}`, key);
  const m = EFFECT_KEY.exec(key);
  if (!m) throw bad("is stored under a key that is not an effect key");
  const body = unz1(EFFECT_DICTIONARY, raw, bad);
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw bad("is not an object");
  return { ...body, run_id: m[1], step: Number(m[2]), tool_call_id: m[3] };
}

/**
 * A snapshot as a delta base: its top-level fields, objects as their JSON text at the time (a tool may
 * change the run's context object in place after this snapshot was written).
 */
export type DeltaBase = { seq: number; fields: Map<string, unknown> };

export function deltaBase(seq: number, snapshot: Record<string, unknown>): DeltaBase {
  const fields = new Map<string, unknown>();
  for (const k in snapshot) {
    const v = snapshot[k];
    fields.set(k, typeof v === "object" && v !== null ? JSON.stringify(v) : v);
  }
  return { seq, fields };
}

/** The top-level fields of snapshot `next` that differ from the base's, and the base's new form (next's). */
export function snapshotDelta(base: DeltaBase, next: Record<string, unknown>): { delta: SnapshotDelta; next: DeltaBase } {
  const fields: Record<string, unknown> = {};
  const now = new Map<string, unknown>();
  for (const k in next) {
    const v = next[k];
    const cmp = typeof v === "object" && v !== null ? JSON.stringify(v) : v;
    now.set(k, cmp);
    if (!base.fields.has(k) || base.fields.get(k) !== cmp) fields[k] = v;
  }
  return { delta: { base_seq: base.seq, fields }, next: { seq: -1, fields: now } };
}

type WithPayload = { seq: number; step: number; phase: string; run_id: string; payload: Record<string, unknown> };

/**
 * Replaces every stored snapshot delta in `records` by the runtime snapshot it encodes, using the others
 * in `records` and `bases` (records that precede them, read only to resolve them). A record whose base is
 * not among them, or unreadable, is returned as an error naming that record's key; the rest are unaffected.
 */
export function resolveSnapshotDeltas<T extends WithPayload>(records: T[], bases: T[] = []): (T | AgentCheckpointCorruptionError)[] {
  if (!records.some((r) => r.payload.snapshot_delta !== undefined)) return records;
  const snapshots = new Map<number, Record<string, unknown> | null>();
  const out = new Map<T, T | AgentCheckpointCorruptionError>();
  const all = [...bases.filter((b) => !records.some((r) => r.seq === b.seq)), ...records].sort((a, b) => a.seq - b.seq);
  for (const r of all) {
    const d = deltaSchema.safeParse(r.payload.snapshot_delta);
    if (r.payload.snapshot_delta === undefined) {
      const s = r.payload.runtime_snapshot;
      if (s && typeof s === "object") snapshots.set(r.seq, s as Record<string, unknown>);
      out.set(r, r);
      continue;
    }
    const base = d.success ? snapshots.get(d.data.base_seq) : undefined;
    if (!d.success || !base) {
      snapshots.set(r.seq, null);
      const why = d.success ? `its base checkpoint ${d.data.base_seq} is missing or unreadable` : "its snapshot delta is malformed";
      out.set(
        r,
        new AgentCheckpointCorruptionError(
          `Checkpoint ${r.seq}'s runtime snapshot cannot be rebuilt: ${why}`,
          keys.checkpoint(r.run_id, r.step, r.seq, r.phase),
        ),
      );
      continue;
    }
    const snapshot = Object.assign({}, base, d.data.fields);
    const { snapshot_delta: _d, ...payload } = r.payload;
    snapshots.set(r.seq, snapshot);
    out.set(r, { ...r, payload: Object.assign(payload, { runtime_snapshot: snapshot }) });
  }
  return records.map((r) => out.get(r) ?? r);
}

/**
 * The key range ({from, to}, both included) that holds every base the snapshot deltas among `records` need
 * (a base is an earlier record of the same execution, fewer than SNAPSHOT_KEYFRAME_STEPS steps before the
 * delta's full snapshot); null when none of them is a delta.
 */
export function snapshotBaseRange(runId: string, records: WithPayload[]): { from: string; to: string } | null {
  const deltas = records.filter((r) => r.payload.snapshot_delta !== undefined);
  if (!deltas.length) return null;
  const first = deltas.reduce((a, b) => (b.step < a.step ? b : a));
  const last = deltas.reduce((a, b) =>
    keys.checkpoint(runId, b.step, b.seq, b.phase) > keys.checkpoint(runId, a.step, a.seq, a.phase) ? b : a,
  );
  return {
    from: keys.checkpoint(runId, Math.max(0, first.step - SNAPSHOT_KEYFRAME_STEPS), 0, ""),
    to: keys.checkpoint(runId, last.step, last.seq, last.phase),
  };
}
