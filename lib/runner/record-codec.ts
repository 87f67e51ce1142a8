// How checkpoint records are stored (checkpoint storage v2). A record reads back exactly as
// checkpoint-schema.md defines it and as it was written (its fields, their order, schema_version v1); only
// its stored text is smaller:
//  - what the key already says is left out (run_id, step, seq, phase; thread_id when it is the run's id);
//  - records are stored in windows: an execution's records at steps floor(step / WINDOW_STEPS) apart
//    share one, and a new execution starts its own. The window's first record is stored whole ("k": 1);
//    every later one as its changes since the record before it (seq − 1): its time as the milliseconds
//    since that record, its payload as the fields that differ from the previous record of the same phase,
//    its runtime snapshot as the fields that differ from the previous snapshot, named by their position
//    in SNAPSHOT_FIELDS, a pending LLM response as its changes since the window's previous one;
//  - usage and log references are stored as tuples, a log digest as base64url (43 characters, not 64);
//  - a payload field of more than COMPRESS_AT bytes of JSON (the terminal result) is stored deflated;
//  - the latest pointer (checkpoint:{run}:latest) is always whole: a resume reads it alone (plain, but a
//    run_terminal one, which stays); so is a run_terminal record, which retention keeps when it deletes a
//    finished run's other records.
// Reading (record-read.ts) walks a window forward once: listCheckpoints reads a run's records in one pass;
// a console page reads from the start of the window of its first record (checkpointWindowStart). The
// encoding is done by the store when it serializes the value (toJSON), so a store that keeps no text
// pays nothing for it.
// Records stored whole and plain (every record written before, fork's and retry's) read as before.
// docs/performance.md has the measurements behind the choice (deltas, compression, each and together).
import { deflateRawSync } from "node:zlib";
import { z } from "zod";
import { keys } from "./keys.ts";

/** A window spans steps floor(step / WINDOW_STEPS): a reader of a record reads at most this many steps. */
export const WINDOW_STEPS = 16;
/** A payload field whose JSON is longer than this is stored deflated (in practice the terminal result). */
export const COMPRESS_AT = 1024;
export const VERSION = 2;

/**
 * The runtime snapshot's fields in the order the runner writes them (execution-state.ts): a stored snapshot names
 * a field by its position here. A snapshot with other fields, or in another order, is stored whole by name.
 * Part of storage v2: a change here is a new storage version.
 */
export const SNAPSHOT_FIELDS = [
  "schema_version",
  "agent_name",
  "step",
  "state",
  "context",
  "llm_calls",
  "tool_calls",
  "started_at_s",
  "active_elapsed_s",
  "usage",
  "total_cost_usd",
  "session_token",
  "checkpoint_token",
  "pending_llm_response",
  "requested_model",
  "normalized_model",
  "provider_adapter",
  "final_text",
  "final_structured",
  "replayed_effect_count",
  "messages",
  "tool_executions",
  "subagent_executions",
] as const;
export const USAGE = 9;
export const PENDING = 13;
export const REFS = new Set([20, 21, 22]);

/** A checkpoint record as checkpoint-schema.md has it (checkpoint.ts validates it). */
export type PlainCheckpoint = {
  schema_version: string;
  run_id: string;
  thread_id: string;
  step: number;
  phase: string;
  timestamp_ms: number;
  seq: number;
  payload: Record<string, unknown>;
};

// A JSON object (its fields are read by the decoder, which checks each where it uses it).
const object = z.custom<Record<string, unknown>>((v) => v !== null && typeof v === "object" && !Array.isArray(v), "not an object");

export const storedSchema = z.object({
  v: z.literal(VERSION),
  /** The first record of a window: stored whole. */
  k: z.literal(1).optional(),
  /** timestamp_ms, or (not k) its difference from the previous record's. */
  t: z.number().int(),
  th: z.string().min(1).optional(),
  /** The latest pointer's step, seq and phase (its key holds none of them). */
  at: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative(), z.string()]).optional(),
  /** The payload's fields (a delta: those that changed), or P: the whole payload where a delta cannot say it. */
  p: object.optional(),
  P: object.optional(),
  /** Payload fields stored deflated (base64), in p/P as null where they stand. */
  z: z.record(z.string(), z.string()).optional(),
  /** The runtime snapshot by field position (a delta: the fields that changed), or S: whole, by name. */
  s: object.optional(),
  S: object.optional(),
});
export type Stored = z.infer<typeof storedSchema>;

/** True when a stored value is a checkpoint record in storage v2. */
export const isStoredV2 = (raw: unknown): boolean =>
  raw !== null && typeof raw === "object" && !Array.isArray(raw) && (raw as { v?: unknown }).v === VERSION;

/** The window's first step for a record at `step`; the window's records are keyed at or after this step's. */
export const windowStartStep = (step: number) => step - (step % WINDOW_STEPS);

/** The key from which a reader of a record at `step` finds its window's records (they are keyed before it). */
export const checkpointWindowStart = (runId: string, step: number) =>
  `${keys.checkpointPrefix(runId)}${String(windowStartStep(step)).padStart(6, "0")}:`;

// checkpoint:{run}:{step}:{seq}:{phase} (keys.checkpoint) and checkpoint:{run}:latest.
export const RECORD_KEY = /^checkpoint:([^:]+):(\d+):(\d+):([a-z_]+)$/;
export const LATEST_KEY = /^checkpoint:([^:]+):latest$/;

// ---- Writing ----

// An object's JSON text, as a comparison form (a string value is its own form: the two never compare equal).
class JsonText {
  constructor(readonly text: string) {}
}

// A value's comparison form: null, numbers, booleans and strings as they are, anything else as its JSON
// text; undefined for a value JSON leaves out. Equal forms store equal JSON (same()).
function formOf(v: unknown): unknown {
  if (v === null || typeof v === "number" || typeof v === "boolean" || typeof v === "string") return v;
  const text = JSON.stringify(v);
  return text === undefined ? undefined : new JsonText(text);
}

const same = (a: unknown, b: unknown) => a === b || (a instanceof JsonText && b instanceof JsonText && a.text === b.text);

/** An object's fields as JSON keeps them (undefined values left out), in order, with their forms. */
type Fields = { names: string[]; forms: unknown[] };

function fieldsOf(o: Record<string, unknown>, skip?: string): Fields {
  const names: string[] = [];
  const forms: unknown[] = [];
  for (const k in o) {
    if (k === skip) continue;
    const f = formOf(o[k]);
    if (f === undefined) continue;
    names.push(k);
    forms.push(f);
  }
  return { names, forms };
}

const sameTuple = (a: readonly unknown[], b: readonly unknown[]) => {
  for (let i = 0; i < b.length; i++) if (a[i] !== b[i]) return false;
  return a.length === b.length;
};

const sameNames = (a: readonly string[], b: readonly string[]) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/** What a reader knows after a record of the window: what the next record is stored against. */
type Seen = {
  t: number;
  thread: string;
  payloads: Map<string, Fields>;
  snapshot: unknown[] | null;
  pending: Fields | null;
};

// Deflated texts of large payload values, by value: the latest pointer and its record share them.
const deflated = new WeakMap<object, string>();

function deflate(value: object, text: string): string {
  let z = deflated.get(value);
  if (z === undefined) {
    z = deflateRawSync(text).toString("base64");
    deflated.set(value, z);
  }
  return z;
}

const b64 = (hex: string) => (hex === "" ? "" : Buffer.from(hex, "hex").toString("base64url"));
const HEX64 = /^[0-9a-f]{64}$/;
const USAGE_FIELDS = ["input_tokens", "output_tokens", "total_tokens"];
const REF_FIELDS = ["count", "digest"];
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

// Usage as [input, output, total] and a log reference as [count, digest (hex)], or undefined when the
// value is not one (the snapshot is then stored whole by name).
function tupleOf(i: number, v: unknown): unknown[] | undefined {
  if (i === USAGE) {
    if (!isObject(v) || !sameNames(Object.keys(v), USAGE_FIELDS)) return undefined;
    const t = [v.input_tokens, v.output_tokens, v.total_tokens];
    return typeof t[0] === "number" && typeof t[1] === "number" && typeof t[2] === "number" ? t : undefined;
  }
  if (!isObject(v) || !sameNames(Object.keys(v), REF_FIELDS)) return undefined;
  if (typeof v.count !== "number" || typeof v.digest !== "string" || (v.digest !== "" && !HEX64.test(v.digest))) return undefined;
  return [v.count, v.digest];
}

// Any other snapshot field's stored form at its position (a pending response as its changes since the
// window's previous one), or undefined when it does not fit there.
function storedField(i: number, v: unknown, pending: Fields | null): unknown {
  if (i === PENDING) {
    if (v === null) return null;
    if (!isObject(v)) return undefined;
    const now = fieldsOf(v);
    if (!pending || !sameNames(pending.names, now.names)) return { "=": v };
    const changed: Record<string, unknown> = {};
    for (let k = 0; k < now.names.length; k++) if (!same(now.forms[k], pending.forms[k])) changed[now.names[k]] = v[now.names[k]];
    return { "~": changed };
  }
  return v;
}

/**
 * The stored body of a record: whole (seen null: the window's first, or the latest pointer) or as its
 * changes since `seen`. Returns what a reader knows after it, for the next record.
 */
function encode(r: PlainCheckpoint, seen: Seen | null, at: boolean): { body: Stored; seen: Seen } {
  const body: Stored = { v: VERSION, t: seen ? r.timestamp_ms - seen.t : r.timestamp_ms };
  if (!seen) body.k = 1;
  if (at) body.at = [r.step, r.seq, r.phase];
  if (!seen && r.thread_id !== r.run_id) body.th = r.thread_id;
  const payload = r.payload;
  const snapshot = payload.runtime_snapshot;
  const now = fieldsOf(payload, "runtime_snapshot");
  const base = seen?.payloads.get(r.phase);
  const delta = base !== undefined && sameNames(base.names, now.names);
  const fields: Record<string, unknown> = {};
  let changed = 0;
  let z: Record<string, string> | null = null;
  for (let i = 0; i < now.names.length; i++) {
    const form = now.forms[i];
    if (delta && same(form, base.forms[i])) continue;
    const k = now.names[i];
    const v = payload[k];
    changed++;
    if (form instanceof JsonText && form.text.length > COMPRESS_AT) {
      z ??= {};
      z[k] = deflate(v as object, form.text);
      fields[k] = null;
    } else fields[k] = v;
  }
  if (base !== undefined && !delta) body.P = fields;
  else if (changed) body.p = fields;
  if (z) body.z = z;
  const payloads = new Map(seen?.payloads);
  payloads.set(r.phase, now);
  const next: Seen = { t: r.timestamp_ms, thread: r.thread_id, payloads, snapshot: seen?.snapshot ?? null, pending: seen?.pending ?? null };
  if (snapshot !== undefined) encodeSnapshot(snapshot, body, next);
  return { body, seen: next };
}

// The runtime snapshot into body.s (by position; only the changed fields after the window's first) or
// body.S (whole, by name: fields or values the positions cannot hold).
function encodeSnapshot(snapshot: unknown, body: Stored, seen: Seen) {
  const whole = () => {
    body.S = snapshot as Record<string, unknown>;
    seen.snapshot = null;
    seen.pending = null;
  };
  if (!isObject(snapshot) || !sameNames(Object.keys(snapshot), SNAPSHOT_FIELDS)) return whole();
  const forms: unknown[] = new Array(SNAPSHOT_FIELDS.length);
  const out: Record<string, unknown> = {};
  const before = seen.snapshot;
  for (let i = 0; i < SNAPSHOT_FIELDS.length; i++) {
    const v = snapshot[SNAPSHOT_FIELDS[i]];
    if (i === USAGE || REFS.has(i)) {
      // Usage and log references are compared as tuples of their numbers and strings.
      const tuple = tupleOf(i, v);
      if (tuple === undefined) return whole();
      forms[i] = tuple;
      if (!before || !sameTuple(before[i] as unknown[], tuple)) out[i] = i === USAGE ? tuple : [tuple[0], b64(tuple[1] as string)];
      continue;
    }
    const form = formOf(v);
    if (form === undefined) return whole();
    forms[i] = form;
    if (before && same(before[i], form)) continue;
    const stored = storedField(i, v, seen.pending);
    if (stored === undefined) return whole();
    out[i] = stored;
  }
  body.s = out;
  seen.snapshot = forms;
  const pending = snapshot.pending_llm_response;
  if (isObject(pending)) seen.pending = fieldsOf(pending);
}

/**
 * The value the runner queues for a record's key: the record's fields as they are (what a store projects
 * into its columns), and, as its JSON (toJSON), its storage v2 body, encoded once, when a store serializes it.
 */
export class StoredCheckpoint {
  private body: Stored | null = null;
  private seen: Seen | null = null;
  constructor(
    readonly record: PlainCheckpoint,
    /** The window's record before this one; null for the window's first and for the latest pointer. */
    private prev: StoredCheckpoint | null,
    private readonly latest: boolean,
  ) {}
  get timestamp_ms() {
    return this.record.timestamp_ms;
  }
  get step() {
    return this.record.step;
  }
  get phase() {
    return this.record.phase;
  }
  // What a reader knows after this record (encoding it first); the next record of the window needs it once.
  private release(): Seen {
    this.toJSON();
    const seen = this.seen!;
    this.seen = null;
    return seen;
  }
  toJSON(): Stored {
    if (!this.body) {
      const e = encode(this.record, this.prev ? this.prev.release() : null, this.latest);
      this.prev = null;
      this.body = e.body;
      if (!this.latest) this.seen = e.seen;
    }
    return this.body;
  }
}

/**
 * One execution's records, in the order it writes them: each record's stored value (the window's first
 * whole, the others as deltas), and the latest pointer's (always whole).
 */
export class CheckpointChain {
  private last: StoredCheckpoint | null = null;

  /** The value to store under `key` for record `r`; a record the key does not describe is stored plain. */
  record(key: string, r: PlainCheckpoint): StoredCheckpoint | PlainCheckpoint {
    const m = RECORD_KEY.exec(key);
    if (!m || !describes(r) || m[1] !== r.run_id || Number(m[2]) !== r.step || Number(m[3]) !== r.seq || m[4] !== r.phase) {
      this.last = null;
      return r;
    }
    const prev = this.last?.record;
    // A terminal record is always whole: retention (lib/db/maintenance.ts) keeps it and deletes the rest.
    const sameWindow =
      prev !== undefined &&
      r.phase !== "run_terminal" &&
      prev.seq === r.seq - 1 &&
      prev.thread_id === r.thread_id &&
      r.step >= prev.step &&
      windowStartStep(r.step) === windowStartStep(prev.step);
    const stored = new StoredCheckpoint(r, sameWindow ? this.last : null, false);
    this.last = stored;
    return stored;
  }

  /**
   * The value of the latest pointer for record `r`: plain (it is one row, rewritten at every record), but
   * a run_terminal record's, which stays: whole in storage v2, with its step, seq and phase, its terminal
   * result deflated.
   */
  latest(key: string, r: PlainCheckpoint): StoredCheckpoint | PlainCheckpoint {
    return r.phase === "run_terminal" && LATEST_KEY.exec(key)?.[1] === r.run_id && describes(r) ? new StoredCheckpoint(r, null, true) : r;
  }
}

// A record storage v2 can hold: the current version, an integer time (the body's "t"), a phase name.
const describes = (r: PlainCheckpoint) => r.schema_version === "v1" && Number.isSafeInteger(r.timestamp_ms) && /^[a-z_]+$/.test(r.phase);
