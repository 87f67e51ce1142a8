// The runtime snapshot: everything needed to resume a run (every key of checkpoint-schema.md's runtime snapshot table).
// In storage, the three lists that only ever grow — messages, tool_executions, subagent_executions — are
// kept in append-only logs (one entry per key) and the stored snapshot holds a reference {count, digest}
// to each. A snapshot therefore costs the same at step 200 as at step 1, and storage grows linearly.
import { listStored, readAll, readStored } from "./read.ts";
import { createHash, type Hash } from "node:crypto";
import { z } from "zod";
import { SCHEMA_VERSIONS, versionField } from "./versions.ts";
import { AgentCheckpointCorruptionError } from "./errors.ts";
import { llmResponseSchema, messageSchema, usageSchema } from "./messages.ts";
import { RUN_STATES } from "./run-states.ts";
import { canonicalJson, sha256 } from "./canonical.ts";
import { type MemoryStore, type StateEntry, keys } from "./store.ts";

export const SNAPSHOT_SCHEMA_VERSION = SCHEMA_VERSIONS.snapshot;

export const toolExecutionSchema = z.object({
  tool_name: z.string(),
  tool_call_id: z.string(),
  success: z.boolean(),
  output: z.unknown(),
  error: z.string().nullable(),
  latency_ms: z.number().nonnegative(),
  agent_path: z.string(),
  replayed: z.boolean().default(false),
  approved_by: z.array(z.string()).default([]),
});
export type ToolExecution = z.infer<typeof toolExecutionSchema>;

export const subagentExecutionSchema = z.object({
  subagent: z.string(),
  run_id: z.string(),
  tool_call_id: z.string(),
  state: z.enum(RUN_STATES),
  final_text: z.string(),
  success: z.boolean(),
  latency_ms: z.number().nonnegative(),
});
export type SubagentExecution = z.infer<typeof subagentExecutionSchema>;

const scalarFields = {
  schema_version: versionField("snapshot"),
  agent_name: z.string(),
  step: z.number().int().nonnegative(),
  state: z.enum(RUN_STATES),
  context: z.record(z.string(), z.unknown()),
  llm_calls: z.number().int().nonnegative(),
  tool_calls: z.number().int().nonnegative(),
  started_at_s: z.number().nonnegative(),
  /** Wall time spent running, excluding pauses (the budget counts this, not time waiting for a human). */
  active_elapsed_s: z.number().nonnegative(),
  usage: usageSchema,
  total_cost_usd: z.number().nonnegative(),
  session_token: z.string().nullable(),
  checkpoint_token: z.string().nullable(),
  requested_model: z.string(),
  normalized_model: z.string(),
  provider_adapter: z.string(),
  final_text: z.string(),
  final_structured: z.record(z.string(), z.unknown()).nullable(),
  replayed_effect_count: z.number().int().nonnegative(),
};

export const runtimeSnapshotSchema = z.object({
  ...scalarFields,
  messages: z.array(messageSchema),
  pending_llm_response: llmResponseSchema.nullable(),
  tool_executions: z.array(toolExecutionSchema),
  subagent_executions: z.array(subagentExecutionSchema),
});
export type RuntimeSnapshot = z.infer<typeof runtimeSnapshotSchema>;

const logRefSchema = z.object({ count: z.number().int().nonnegative(), digest: z.string() });
export type LogRef = z.infer<typeof logRefSchema>;

/**
 * Stored form. pending_llm_response stays raw here: it is validated separately so that an unreadable one
 * is reported as exactly that (and never answered by a second model call).
 */
export const storedSnapshotSchema = z.object({
  ...scalarFields,
  messages: logRefSchema,
  tool_executions: logRefSchema,
  subagent_executions: logRefSchema,
  pending_llm_response: z.unknown(),
});
export type StoredSnapshot = z.infer<typeof storedSnapshotSchema>;

/**
 * An append-only list persisted one entry per key. Its digest is the sha256 of every entry's canonical JSON,
 * each preceded by its length, so that a missing, reordered or altered entry is detected on load; one
 * running hash (copied when a snapshot names the digest) costs a resume 0.2 µs an entry where a chain of
 * hashes (the digest before, legacyChainDigest) cost 0.7 µs. texts[i] is items[i]'s canonical JSON: what
 * is hashed, and what the entry is stored as.
 */
export class AppendLog<T> {
  readonly items: T[] = [];
  readonly texts: string[] = [];
  private readonly hash: Hash = createHash("sha256");
  private current: string | null = "";

  append(item: T, text = canonicalJson(item)): number {
    this.items.push(item);
    this.texts.push(text);
    this.hash.update(`${text.length}\n`);
    this.hash.update(text);
    this.current = null;
    return this.items.length - 1;
  }
  /** "" for an empty log. */
  get digest(): string {
    this.current ??= this.hash.copy().digest("hex");
    return this.current;
  }
  ref(): LogRef {
    return { count: this.items.length, digest: this.digest };
  }
}

/** A log's digest as stored before the running hash: each entry chained to the digest before it. */
export function legacyChainDigest(texts: string[]): string {
  let digest = "";
  for (const t of texts) digest = sha256(digest + t);
  return digest;
}

/**
 * Reads the first `ref.count` entries of a log, validates each and checks the digest; any mismatch is corruption.
 * The digest is first checked over the stored texts, which the runner writes in canonical form, so that a
 * 1,000-step resume does not serialize 3,000 entries again; only when that does not match (text stored by
 * an older version, or by hand, in another key order) is it recomputed from the parsed entries.
 */
export async function loadLog<T>(
  store: MemoryStore,
  threadId: string,
  prefix: string,
  ref: LogRef,
  schema: z.ZodType<T>,
  what: string,
): Promise<AppendLog<T>> {
  return checkLog(await readLog(store, threadId, prefix, what, ref.count), prefix, ref, schema, what);
}

/** A log's entries as stored (the first `count` when given). */
function readLog(store: MemoryStore, threadId: string, prefix: string, what: string, count?: number): Promise<StoredLog> {
  if (store.listTexts) return logTexts(store, threadId, prefix, count, what);
  return listStored(store, threadId, prefix, `${what} entry`).then((entries) => fromEntries(entries, count ?? entries.length));
}

/** The log a snapshot's reference names, from its entries as read: validated, its digest chain checked. */
function checkLog<T>(stored: StoredLog, prefix: string, ref: LogRef, schema: z.ZodType<T>, what: string): AppendLog<T> {
  if (stored.values.length < ref.count) {
    throw new AgentCheckpointCorruptionError(`Snapshot names ${ref.count} ${what} entries but ${stored.values.length} are stored`, prefix);
  }
  const items: T[] = new Array(ref.count);
  for (let i = 0; i < ref.count; i++) {
    const parsed = schema.safeParse(stored.values[i]);
    if (!parsed.success) throw new AgentCheckpointCorruptionError(`Malformed ${what} entry`, stored.keyOf(i));
    items[i] = parsed.data;
  }
  // A log whose digest is a chain (stored before the running hash) loads, and goes on with a running hash.
  const matches = (log: AppendLog<T>) => log.digest === ref.digest || legacyChainDigest(log.texts) === ref.digest;
  const texts = stored.texts;
  if (texts) {
    const log = new AppendLog<T>();
    for (let i = 0; i < items.length; i++) log.append(items[i], texts[i]);
    if (matches(log)) return log;
  }
  const log = new AppendLog<T>();
  for (const item of items) log.append(item);
  if (!matches(log)) throw new AgentCheckpointCorruptionError(`The ${what} log does not match the snapshot's digest`, prefix);
  return log;
}

/** A log's first entries as read: values, their stored texts (when every one has its text) and keys. */
type StoredLog = { values: unknown[]; texts: string[] | null; keyOf: (i: number) => string };

function fromEntries(entries: StateEntry[], count: number): StoredLog {
  const head = entries.slice(0, count);
  const texts = head.every((e) => e.text !== undefined) ? head.map((e) => e.text as string) : null;
  return { values: head.map((e) => e.value), texts, keyOf: (i) => head[i].key };
}

// A log's first `count` entries through the store's listTexts: no keys read (the i-th entry's is
// keys.logEntry(prefix, i), made only to name a bad one; the digest chain finds an entry missing or out of
// place).
async function logTexts(store: MemoryStore, threadId: string, prefix: string, count: number | undefined, what: string): Promise<StoredLog> {
  const texts = await store.listTexts!(threadId, prefix, count);
  const keyOf = (i: number) => keys.logEntry(prefix, i);
  const values: unknown[] = new Array(texts.length);
  for (let i = 0; i < texts.length; i++) {
    try {
      values[i] = JSON.parse(texts[i]);
    } catch {
      throw new AgentCheckpointCorruptionError(`${/^[aeiou]/i.test(what) ? "An" : "A"} ${what} entry is not valid JSON`, keyOf(i));
    }
  }
  return { values, texts, keyOf };
}

export type LoadedSnapshot = {
  snapshot: Omit<RuntimeSnapshot, "messages" | "tool_executions" | "subagent_executions" | "pending_llm_response">;
  pending: RuntimeSnapshot["pending_llm_response"];
  messages: AppendLog<RuntimeSnapshot["messages"][number]>;
  toolExecutions: AppendLog<ToolExecution>;
  subagentExecutions: AppendLog<SubagentExecution>;
};

/**
 * Loads a run's runtime snapshot with its logs, validated (checkpoint-schema.md, runtime snapshot).
 *
 * The logs are read at once with the snapshot (on a networked database their round trips overlap). Those
 * reads are not one transaction: a log read may see the store from before a step its writer committed
 * since, and the snapshot after it (it names entries the log read did not see). The writer stores a
 * step's log entries before, or with, the snapshot that counts them, and never changes an entry a stored
 * snapshot counts; so when the logs do not match, they are read again after the snapshot, and only what
 * still does not match is corruption. A reader that follows a running run must not mark it corrupt.
 */
export async function loadSnapshot(store: MemoryStore, threadId: string, runId: string): Promise<LoadedSnapshot> {
  const prefixes = [keys.messagePrefix(runId), keys.toolExecutionPrefix(runId), keys.subagentExecutionPrefix(runId)] as const;
  const readLogs = (s?: ReadSnapshot) =>
    [s?.raw.messages, s?.raw.tool_executions, s?.raw.subagent_executions].map((ref, i) =>
      readLog(store, threadId, prefixes[i], LOG_NAMES[i], ref?.count),
    );
  const reads = readLogs();
  // An unreadable snapshot is the error reported; the logs' reads go on unheard.
  for (const r of reads) r.catch(() => undefined);
  const s = await readSnapshot(store, threadId, runId);
  try {
    return await checkLogs(s, reads, prefixes);
  } catch (e) {
    if (!(e instanceof AgentCheckpointCorruptionError)) throw e;
  }
  const again = await readSnapshot(store, threadId, runId);
  return checkLogs(again, readLogs(again), prefixes);
}

const LOG_NAMES = ["message", "tool execution", "subagent execution"] as const;

type ReadSnapshot = { raw: StoredSnapshot; pending: RuntimeSnapshot["pending_llm_response"] };

async function readSnapshot(store: MemoryStore, threadId: string, runId: string): Promise<ReadSnapshot> {
  const key = keys.runtime(runId);
  const raw = await readStored(store, threadId, key, "Runtime snapshot");
  if (raw === undefined) throw new AgentCheckpointCorruptionError("Runtime snapshot is missing", key);
  const parsed = storedSnapshotSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentCheckpointCorruptionError(
      `Runtime snapshot field ${issue.path.join(".") || "snapshot"} is invalid: ${issue.message}`,
      key,
    );
  }
  const s = parsed.data;
  let pending: RuntimeSnapshot["pending_llm_response"] = null;
  if (s.pending_llm_response !== null && s.pending_llm_response !== undefined) {
    const p = llmResponseSchema.safeParse(s.pending_llm_response);
    if (!p.success) throw new AgentCheckpointCorruptionError("pending_llm_response cannot be deserialized", key);
    pending = p.data;
  }
  return { raw: s, pending };
}

async function checkLogs(
  s: ReadSnapshot,
  reads: Promise<StoredLog>[],
  prefixes: readonly [string, string, string],
): Promise<LoadedSnapshot> {
  const { messages, tool_executions, subagent_executions, pending_llm_response: _p, ...scalars } = s.raw;
  const [m, t, sub] = await readAll([
    reads[0].then((r) => checkLog(r, prefixes[0], messages, messageSchema, LOG_NAMES[0])),
    reads[1].then((r) => checkLog(r, prefixes[1], tool_executions, toolExecutionSchema, LOG_NAMES[1])),
    reads[2].then((r) => checkLog(r, prefixes[2], subagent_executions, subagentExecutionSchema, LOG_NAMES[2])),
  ]);
  return { snapshot: scalars, pending: s.pending, messages: m, toolExecutions: t, subagentExecutions: sub };
}
