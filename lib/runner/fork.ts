// Continuing a run from an earlier checkpoint. Both operations only write records; the caller then resumes
// the run with Runner.resumeHandle, so the one resume path is the only code that executes anything.
//  - retry: a failed run continues under its own id from its last snapshot checkpoint. Effects already
//    recorded under that id replay, so a tool that ran before the failure does not run twice.
//  - fork: a new run starts from any checkpoint of another run, with copies of its logs up to that point.
//    It shares no effects or approvals with the source: every side effect after the fork point is new and
//    needs its own approvals.
import { agentFingerprint, type Agent } from "./agent.ts";
import { CHECKPOINT_SCHEMA_VERSION, type CheckpointRecord } from "./checkpoint.ts";
import { AgentCheckpointCorruptionError, RunRewindError } from "./errors.ts";
import { messageSchema } from "./messages.ts";
import { loadLatestCheckpoint, listCheckpoints, terminalResultOf } from "./resume.ts";
import {
  type StoredSnapshot,
  loadLog,
  loadSnapshot,
  storedSnapshotSchema,
  subagentExecutionSchema,
  toolExecutionSchema,
} from "./runtime-snapshot.ts";
import { type MemoryStore, type StateEntry, checkpointLatestKey, keys } from "./store.ts";

// The last checkpoint at or before `seq` that carries a full runtime snapshot.
function snapshotAtOrBefore(checkpoints: CheckpointRecord[], seq: number): { record: CheckpointRecord; snapshot: StoredSnapshot } | null {
  const candidates = checkpoints.filter((c) => c.seq <= seq && c.payload.runtime_snapshot !== undefined).sort((a, b) => b.seq - a.seq);
  const record = candidates[0];
  if (!record) return null;
  const parsed = storedSnapshotSchema.safeParse(record.payload.runtime_snapshot);
  if (!parsed.success)
    throw new AgentCheckpointCorruptionError(
      "Runtime snapshot in checkpoint is invalid",
      keys.checkpoint(record.run_id, record.step, record.seq, record.phase),
    );
  return { record, snapshot: parsed.data };
}

const maxSeq = (cps: CheckpointRecord[]) => cps.reduce((m, c) => Math.max(m, c.seq), 0);

/**
 * Rewinds a failed run to its last checkpoint with a snapshot so that a resume continues from there (a run stopped at a durable checkpoint
 * needs no rewind). Throws RunRewindError for a run that did not fail.
 */
export async function prepareRetry(store: MemoryStore, threadId: string, runId: string): Promise<{ fromSeq: number }> {
  const latest = await loadLatestCheckpoint(store, threadId, runId);
  const terminal = terminalResultOf(latest);
  if (!terminal) return { fromSeq: latest.seq }; // stopped at a durable checkpoint (store fault): a plain resume
  if (terminal.state !== "failed") throw new RunRewindError(`Only a failed run can be retried; this one is ${terminal.state}`);
  const cps = await listCheckpoints(store, threadId, runId);
  const good = snapshotAtOrBefore(cps, latest.seq);
  if (!good) throw new RunRewindError("The run has no checkpoint with a snapshot to retry from");
  const copy: CheckpointRecord = {
    ...good.record,
    seq: maxSeq(cps) + 1,
    timestamp_ms: Date.now(),
    payload: { ...good.record.payload, retry: { from_seq: good.record.seq, failed_seq: latest.seq, error: terminal.error } },
  };
  await store.putState(threadId, keys.runtime(runId), good.snapshot);
  await store.putState(threadId, keys.checkpoint(runId, copy.step, copy.seq, copy.phase), copy);
  await store.putState(threadId, checkpointLatestKey(runId), copy);
  return { fromSeq: good.record.seq };
}

export type ForkInput = { threadId: string; runId: string; seq: number; newRunId: string; agent: Agent; context?: Record<string, unknown> };

/**
 * Writes a new run's first records from checkpoint `seq` of another run (its snapshot at or before that checkpoint); starting the new run
 * continues from there.
 */
export async function prepareFork(store: MemoryStore, f: ForkInput): Promise<{ fromSeq: number; fromPhase: string }> {
  const cps = await listCheckpoints(store, f.threadId, f.runId);
  if (!cps.some((c) => c.seq === f.seq)) throw new RunRewindError(`Run ${f.runId} has no checkpoint ${f.seq}`);
  const good = snapshotAtOrBefore(cps, f.seq);
  if (!good) throw new RunRewindError("No snapshot at or before that checkpoint");
  const s = good.snapshot;
  const [messages, tools, subs] = await Promise.all([
    loadLog(store, f.threadId, keys.messagePrefix(f.runId), s.messages, messageSchema, "message"),
    loadLog(store, f.threadId, keys.toolExecutionPrefix(f.runId), s.tool_executions, toolExecutionSchema, "tool execution"),
    loadLog(store, f.threadId, keys.subagentExecutionPrefix(f.runId), s.subagent_executions, subagentExecutionSchema, "subagent execution"),
  ]);
  const snapshot: StoredSnapshot = { ...s, context: { ...s.context, ...f.context }, state: "running" };
  const now = Date.now();
  const base = { schema_version: CHECKPOINT_SCHEMA_VERSION, run_id: f.newRunId, thread_id: f.newRunId } as const;
  const forkedFrom = { run_id: f.runId, seq: good.record.seq, phase: good.record.phase, requested_seq: f.seq };
  const started: CheckpointRecord = {
    ...base,
    step: 0,
    phase: "run_started",
    timestamp_ms: now,
    seq: 0,
    payload: {
      agent_name: f.agent.name,
      resumed: false,
      agent_fingerprint: agentFingerprint(f.agent),
      agent_path: f.agent.name,
      root_run_id: f.newRunId,
      forked_from: forkedFrom,
      runtime_snapshot: snapshot,
    },
  };
  const at: CheckpointRecord = {
    ...base,
    step: good.record.step,
    phase: good.record.phase,
    timestamp_ms: now,
    seq: 1,
    payload: { ...good.record.payload, runtime_snapshot: snapshot, forked_from: forkedFrom },
  };
  const entries: StateEntry[] = [
    ...messages.items.map((m, i) => ({ key: keys.message(f.newRunId, i), value: m, text: messages.texts[i] })),
    ...tools.items.map((t, i) => ({ key: keys.toolExecution(f.newRunId, i), value: t, text: tools.texts[i] })),
    ...subs.items.map((x, i) => ({ key: keys.subagentExecution(f.newRunId, i), value: x, text: subs.texts[i] })),
    { key: keys.runtime(f.newRunId), value: snapshot },
    { key: keys.checkpoint(f.newRunId, 0, 0, "run_started"), value: started },
    { key: keys.checkpoint(f.newRunId, at.step, 1, at.phase), value: at },
    { key: checkpointLatestKey(f.newRunId), value: at },
  ];
  if (store.putStates) await store.putStates(f.newRunId, entries);
  else for (const e of entries) await store.putState(f.newRunId, e.key, e.value);
  return { fromSeq: good.record.seq, fromPhase: good.record.phase };
}

export type RepeatedEffect = { tool_name: string; tool_call_id: string; args: Record<string, unknown> };

/**
 * The tool calls that succeeded in run `runId` after checkpoint `seq`'s snapshot: a fork from `seq` shares no
 * effects with its source, so each of them runs again in the fork (once approved) — an operator is told first.
 */
export async function effectsAfter(store: MemoryStore, threadId: string, runId: string, seq: number): Promise<RepeatedEffect[]> {
  const cps = await listCheckpoints(store, threadId, runId);
  if (!cps.some((c) => c.seq === seq)) throw new RunRewindError(`Run ${runId} has no checkpoint ${seq}`);
  const good = snapshotAtOrBefore(cps, seq);
  if (!good) throw new RunRewindError("No snapshot at or before that checkpoint");
  const latest = await loadSnapshot(store, threadId, runId);
  const argsById = new Map<string, Record<string, unknown>>();
  for (const m of latest.messages.items) if (m.role === "assistant") for (const c of m.tool_calls) argsById.set(c.id, c.args);
  return latest.toolExecutions.items
    .slice(good.snapshot.tool_executions.count)
    .filter((t) => t.success)
    .map((t) => ({ tool_name: t.tool_name, tool_call_id: t.tool_call_id, args: argsById.get(t.tool_call_id) ?? {} }));
}
