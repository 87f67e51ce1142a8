// Reading checkpoint records stored in storage v2 (record-codec.ts describes the format): a record stored
// whole alone, a delta with the records before it in its window, walking forward once in write order.
// The stored body is validated (storedSchema); the record it gives is checked by checkpoint.ts.
import { inflateRawSync } from "node:zlib";
import { AgentCheckpointCorruptionError } from "./errors.ts";
import {
  LATEST_KEY,
  PENDING,
  type PlainCheckpoint,
  RECORD_KEY,
  REFS,
  SNAPSHOT_FIELDS,
  type Stored,
  USAGE,
  checkpointWindowStart,
  isStoredV2,
  storedSchema,
} from "./record-codec.ts";

const bad = (key: string | undefined, why: string) => new AgentCheckpointCorruptionError(`Checkpoint record (storage v2) ${why}`, key);

type Where = { runId: string; step: number; seq: number; phase: string };

/** What a reader knows after a record of a window: the values the next record's changes apply to. */
type Known = {
  seq: number;
  t: number;
  thread: string;
  payloads: Map<string, Record<string, unknown>>;
  snapshot: Record<string, unknown> | null;
  pending: Record<string, unknown> | null;
};

const B64_DIGEST = /^[A-Za-z0-9_-]{43}$/;

function parseStored(raw: unknown, key: string | undefined): Stored {
  const parsed = storedSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw bad(key, `field ${issue.path.join(".") || "record"} is invalid: ${issue.message}`);
  }
  return parsed.data;
}

function inflate(text: string, key: string | undefined): unknown {
  try {
    return JSON.parse(inflateRawSync(Buffer.from(text, "base64")).toString("utf8"));
  } catch {
    throw bad(key, "has a compressed field that cannot be read");
  }
}

// The payload's fields: whole (P, or p without a previous record of the phase), or p's changes over it.
function payloadOf(b: Stored, base: Record<string, unknown> | undefined, key: string | undefined): Record<string, unknown> {
  const fields = b.P ? { ...b.P } : base ? { ...base, ...b.p } : { ...b.p };
  if (b.z)
    for (const k in b.z) {
      if (fields[k] !== null) throw bad(key, `has a compressed field ${k} without its place`);
      fields[k] = inflate(b.z[k], key);
    }
  return fields;
}

function fieldOf(i: number, v: unknown, pending: Record<string, unknown> | null, key: string | undefined): unknown {
  if (i === USAGE) {
    if (!Array.isArray(v) || v.length !== 3 || typeof v[0] !== "number" || typeof v[1] !== "number" || typeof v[2] !== "number")
      throw bad(key, "has a malformed usage");
    return { input_tokens: v[0], output_tokens: v[1], total_tokens: v[2] };
  }
  if (REFS.has(i)) {
    if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== "number" || typeof v[1] !== "string")
      throw bad(key, "has a malformed log reference");
    if (v[1] === "") return { count: v[0], digest: "" };
    if (!B64_DIGEST.test(v[1])) throw bad(key, "has a malformed log digest");
    return { count: v[0], digest: Buffer.from(v[1], "base64url").toString("hex") };
  }
  if (i === PENDING && v !== null) {
    const o = v as Record<string, unknown>;
    const inner = typeof o === "object" && !Array.isArray(o) ? (o["="] ?? o["~"]) : undefined;
    if (inner === null || typeof inner !== "object" || Array.isArray(inner) || Object.keys(o).length !== 1)
      throw bad(key, "has a malformed pending response");
    if (o["="] !== undefined) return inner;
    if (!pending) throw bad(key, "changes a pending response with none before it in its window");
    return { ...pending, ...(inner as Record<string, unknown>) };
  }
  return v;
}

// The runtime snapshot: S (whole, by name), or s by field position, whole or as changes over `base`.
function snapshotOf(b: Stored, base: Record<string, unknown> | null, pending: Record<string, unknown> | null, key: string | undefined) {
  if (b.S) return b.S;
  const s = b.s!;
  if (base) {
    const out: Record<string, unknown> = { ...base };
    for (const i in s) {
      const n = +i;
      const name = SNAPSHOT_FIELDS[n];
      if (name === undefined) throw bad(key, `names no snapshot field ${i}`);
      out[name] = fieldOf(n, s[i], pending, key);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (let n = 0; n < SNAPSHOT_FIELDS.length; n++) {
    if (!(n in s)) throw bad(key, `has no snapshot field ${SNAPSHOT_FIELDS[n]}`);
    out[SNAPSHOT_FIELDS[n]] = fieldOf(n, s[n], pending, key);
  }
  if (Object.keys(s).length !== SNAPSHOT_FIELDS.length) throw bad(key, "names a snapshot field that does not exist");
  return out;
}

/**
 * One record from its stored body; `k`: what its window knew before it (null for a window's first),
 * updated in place to what the window knows after it.
 */
function decodeOne(b: Stored, w: Where, k: Known | null, key: string | undefined): { record: PlainCheckpoint; known: Known } {
  const known: Known = b.k || !k ? { seq: w.seq, t: b.t, thread: b.th ?? w.runId, payloads: new Map(), snapshot: null, pending: null } : k;
  if (known === k) {
    known.seq = w.seq;
    known.t += b.t;
  }
  const fields = payloadOf(b, known.payloads.get(w.phase), key);
  known.payloads.set(w.phase, fields);
  let payload = fields;
  if (b.s || b.S) {
    const snapshot = snapshotOf(b, known.snapshot, known.pending, key);
    // A snapshot stored by name is whole; the window's next one is stored whole too (record-codec.ts).
    known.snapshot = b.S ? null : snapshot;
    known.pending = b.S ? null : ((snapshot.pending_llm_response as Record<string, unknown> | null) ?? known.pending);
    payload = { ...fields };
    payload.runtime_snapshot = snapshot;
  }
  if (known.t < 0) throw bad(key, "has a negative time");
  const record = {
    schema_version: "v1",
    run_id: w.runId,
    thread_id: known.thread,
    step: w.step,
    phase: w.phase,
    timestamp_ms: known.t,
    seq: w.seq,
    payload,
  };
  return { record, known };
}

/**
 * A record stored whole in storage v2 (the latest pointer, a window's first record) as its plain form; a
 * delta cannot be read alone (decodeCheckpointEntries reads it with its window).
 */
export function decodeStandalone(raw: unknown, key: string | undefined): PlainCheckpoint {
  const b = parseStored(raw, key);
  if (!b.k) throw bad(key, "is stored as a change to the record before it and cannot be read alone");
  const latest = key === undefined ? null : LATEST_KEY.exec(key);
  if (latest) {
    if (!b.at) throw bad(key, "has no step, seq and phase");
    return decodeOne(b, { runId: latest[1], step: b.at[0], seq: b.at[1], phase: b.at[2] }, null, key).record;
  }
  const m = key === undefined ? null : RECORD_KEY.exec(key);
  if (!m) throw bad(key, "is stored under a key that is not a checkpoint key");
  return decodeOne(b, { runId: m[1], step: +m[2], seq: +m[3], phase: m[4] }, null, key).record;
}

/**
 * Records of one run as stored (parsed JSON), in any order. For each entry, in the same order: the plain
 * form of a storage v2 record (a delta read from the records before it in its window, which must be among
 * the entries), undefined for any other value (a plain record, read as it is), or an
 * AgentCheckpointCorruptionError naming the key of a record that cannot be read, which every later delta
 * of its window shares; the other records are unaffected.
 */
export function decodeCheckpointEntries(
  entries: readonly { key: string; value: unknown }[],
): (PlainCheckpoint | AgentCheckpointCorruptionError | undefined)[] {
  const out: (PlainCheckpoint | AgentCheckpointCorruptionError | undefined)[] = new Array(entries.length);
  const order: number[] = [];
  const where: Where[] = new Array(entries.length);
  let sorted = true;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (!isStoredV2(e.value)) continue;
    const m = RECORD_KEY.exec(e.key);
    if (!m) {
      // The latest pointer is whole; anything else under another key is not a record.
      try {
        out[i] = decodeStandalone(e.value, e.key);
      } catch (err) {
        if (!(err instanceof AgentCheckpointCorruptionError)) throw err;
        out[i] = err;
      }
      continue;
    }
    where[i] = { runId: m[1], step: +m[2], seq: +m[3], phase: m[4] };
    if (order.length && where[order[order.length - 1]].seq > where[i].seq) sorted = false;
    order.push(i);
  }
  // Keys sort by step, then seq; seq is write order (a retry writes a later seq at an earlier step).
  if (!sorted) order.sort((a, b) => where[a].seq - where[b].seq);
  let known: Known | null = null;
  for (const i of order) {
    const { key, value } = entries[i];
    const w = where[i];
    try {
      const b = parseStored(value, key);
      if (!b.k && known?.seq !== w.seq - 1)
        throw bad(key, `cannot be read: the record before it in its window (seq ${w.seq - 1}) is missing or unreadable`);
      const d = decodeOne(b, w, b.k ? null : known, key);
      out[i] = d.record;
      known = d.known;
    } catch (err) {
      if (!(err instanceof AgentCheckpointCorruptionError)) throw err;
      out[i] = err;
      known = null;
    }
  }
  return out;
}

/**
 * The key ranges ({from, to}: from included, to not) holding the records that the storage v2 deltas among
 * `entries` are read from and that `entries` lack: for each window, from its first step to the last such
 * delta. A reader that read some of a run's records (a page, a few by seq) reads these too, then
 * decodeCheckpointEntries over all of them.
 */
export function windowsToRead(entries: readonly { key: string; value: unknown }[]): { from: string; to: string }[] {
  const seqs = new Set<number>();
  const deltas: { key: string; runId: string; step: number; seq: number }[] = [];
  for (const e of entries) {
    const m = RECORD_KEY.exec(e.key);
    if (!m) continue;
    seqs.add(+m[3]);
    if (isStoredV2(e.value) && (e.value as { k?: unknown }).k !== 1) deltas.push({ key: e.key, runId: m[1], step: +m[2], seq: +m[3] });
  }
  const ranges = new Map<string, string>();
  for (const d of deltas) {
    if (seqs.has(d.seq - 1)) continue;
    const from = checkpointWindowStart(d.runId, d.step);
    const to = ranges.get(from);
    if (to === undefined || d.key > to) ranges.set(from, d.key);
  }
  return [...ranges].map(([from, to]) => ({ from, to }));
}
