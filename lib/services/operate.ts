// An operator's actions on a run: resume (also a reviewer's, once everything is decided), cancel, retry a
// failed run from its last checkpoint, fork a new run from any checkpoint. Each refuses a run with an
// unreadable record (409 naming its key) and is audited with the executor's state change.
import "server-only";
import { randomUUID } from "node:crypto";
import type { Actor } from "../auth/actor.ts";
import { ConflictError, CorruptRecordError, ValidationError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import { AgentCheckpointCorruptionError, RUN, RunRewindError } from "../runner/index.ts";
import { appendAudit } from "../db/audit.ts";
import { checkpointBySeq } from "../db/read-models.ts";
import { createRunRow, markRunCorrupt, setRunState } from "../db/runs.ts";
import { parseOr400 } from "../validation.ts";
import { authorize, visibleRun } from "./access.ts";
import { assertReadable, onRun, pendingApprovalsOf } from "./run-view.ts";
import { forkSchema } from "./schemas.ts";
import { cancelExternalRun } from "./runtime-progress.ts";

type RunInput = { runId: string };

// An external run executes in its own runtime: it resumes there (after claiming its decisions), and this
// console holds no checkpoint to retry or fork it from.
function externalRefused(run: { runtimeTokenId: string | null }, what: string) {
  if (run.runtimeTokenId) throw new ConflictError(`An external run is not ${what} here: its runtime executes it`);
}

export async function resumeRun(ctx: AppContext, actor: Actor | null, { runId }: RunInput) {
  const { db, executor: ex } = ctx;
  const who = authorize(actor, ["approvals:decide", "runs:operate"]);
  const run = await visibleRun(ctx, who, runId);
  externalRefused(run, "resumed");
  await assertReadable(ctx, run);
  if (run.state !== RUN.paused) throw new ConflictError(`Run is ${run.state}, not paused`);
  const pending = await onRun(db, run.id, () => pendingApprovalsOf(db, run.id));
  if (pending.length) throw new ConflictError(`${pending.length} approval(s) still pending`);
  if (!(await ex.resumeWithAudit(run.id, who))) throw new ConflictError("Run was resumed by someone else");
  return { id: run.id, resumed: true as const };
}

export async function cancelRun(ctx: AppContext, actor: Actor | null, { runId }: RunInput) {
  const { executor: ex } = ctx;
  const who = authorize(actor, "runs:operate");
  const run = await visibleRun(ctx, who, runId);
  await assertReadable(ctx, run);
  if (run.state !== RUN.running && run.state !== RUN.paused)
    throw new ConflictError(`Run is ${run.state}; only running or paused runs can be cancelled`);
  if (run.runtimeTokenId) return cancelExternalRun(ctx, who, run);
  const audit = { actor: who, action: "run.cancel", targetType: "run", targetId: run.id, data: { from_state: run.state } };
  if (!(await ex.cancel(run.id, audit))) throw new ConflictError("Run is no longer running or paused");
  return { id: run.id, cancelling: true as const };
}

function rewindError(e: unknown): never {
  if (e instanceof RunRewindError) throw new ConflictError(e.message);
  throw e;
}

export async function retryRun(ctx: AppContext, actor: Actor | null, { runId }: RunInput) {
  const { db, executor: ex } = ctx;
  const who = authorize(actor, "runs:operate");
  const run = await visibleRun(ctx, who, runId);
  externalRefused(run, "retried");
  await assertReadable(ctx, run);
  if (run.state !== RUN.failed) throw new ConflictError(`Run is ${run.state}; only a failed run can be retried`);
  const audit = { actor: who, action: "run.retry", targetType: "run", targetId: run.id, data: { error: run.error } };
  const ok = await onRun(db, run.id, () => ex.retry(run.id, audit).catch(rewindError));
  if (!ok) throw new ConflictError("Run was retried by someone else");
  return { id: run.id, retrying: true as const };
}

export type ForkInput = RunInput & {
  /** { seq } as the client sent it: the checkpoint to fork from. */
  body: unknown;
};

export async function forkRun(ctx: AppContext, actor: Actor | null, { runId, body }: ForkInput) {
  const { db, executor: ex } = ctx;
  const who = authorize(actor, "runs:operate");
  const run = await visibleRun(ctx, who, runId);
  const { seq } = parseOr400(forkSchema, body);
  externalRefused(run, "forked");
  await assertReadable(ctx, run);
  if (!(await checkpointBySeq(db, run.threadId, run.id, seq))) throw new ValidationError("seq", `Run has no checkpoint ${seq}`);
  const id = randomUUID();
  await createRunRow(db, {
    id,
    agentName: run.agentName,
    input: JSON.parse(run.input),
    submittedById: who.id,
    submittedByEmail: who.email,
    forkedFromRunId: run.id,
    forkedFromSeq: seq,
  });
  try {
    await ex.fork(run.id, seq, id, who.email);
  } catch (e) {
    await setRunState(db, id, { state: RUN.failed, error: e instanceof Error ? e.message : String(e), finishedAt: new Date() });
    if (e instanceof AgentCheckpointCorruptionError) {
      await markRunCorrupt(db, run.id, e.key ?? null);
      throw new CorruptRecordError(e.message, e.key ?? null);
    }
    rewindError(e);
  }
  await appendAudit(db, { actor: who, action: "run.fork", targetType: "run", targetId: id, data: { from_run: run.id, from_seq: seq } });
  return { id, forkedFrom: { runId: run.id, seq } };
}
