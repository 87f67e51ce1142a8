// The CLI on DATABASE_URL as a named user (--as / AFK_ACTOR): every command goes through the same service
// functions as the console's routes and server actions, so a run started here has its Run row and audit
// entry, a decision is checked against the user's role and routing, and resume/cancel/retry reserve the
// run with the same compare-and-set (a run another worker holds is refused, nothing written). Executions
// go through the context's dispatch: on SQLite they run in this process (the CLI waits for them), on
// PostgreSQL they are queued for the workers.
import { actorByEmail } from "../auth/actor.ts";
import { CorruptRecordError, HttpError } from "../auth/errors.ts";
import { type AppContext, appContext } from "../context.ts";
import { db } from "../db/client.ts";
import { env } from "../env.ts";
import { pruneCheckpoints } from "../execution/retention.ts";
import {
  cancelRun,
  decide,
  forkRun,
  getRunView,
  listInbox,
  listRuns,
  resumeRun,
  retryRun,
  startRun,
  timelinePage,
} from "../runs/service.ts";
import { sweep } from "../execution/sweep.ts";
import { AgentCheckpointCorruptionError } from "../runner/index.ts";
import { type Backend, CliError, pollUntilSettled } from "./backend.ts";

/** A service's typed error as the CLI reports it; anything else is a bug and passes through. */
export function cliErrorOf(e: unknown): unknown {
  if (e instanceof AgentCheckpointCorruptionError) e = new CorruptRecordError(e.message, e.key ?? null);
  if (e instanceof CorruptRecordError) return new CliError(`AgentCheckpointCorruptionError: ${e.message} (key ${e.key})`, 409);
  if (e instanceof HttpError) return new CliError(e.message, e.status, e.field, "current" in e ? e.current : undefined);
  if ((e as { code?: string } | null)?.code === "P2028")
    return new CliError("The database did not finish this request in time and nothing was changed; try again", 503);
  return e;
}

async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw cliErrorOf(e);
  }
}

function openContext(): AppContext {
  return appContext();
}

/** Lets what this process executes pause or end (SQLite), then closes the queue, the bus and the database. */
async function closeContext(ctx: AppContext) {
  await ctx.worker.idle();
  await ctx.queue?.stop(5_000);
  await ctx.live.close();
  await ctx.db.$disconnect();
}

export async function localBackend(email: string): Promise<Backend> {
  // Who acts, before the context (and, on PostgreSQL, its queue) is built: an unknown user costs one read.
  const actor = await mapped(() => actorByEmail(db(), email)).catch(async (e) => {
    await db().$disconnect();
    throw e;
  });
  const ctx = openContext();
  const executesHere = env().databaseProvider === "sqlite";
  const show = (runId: string) => mapped(() => getRunView(ctx, actor, runId));
  return {
    describe: `${actor.email} (${actor.role}) on ${env().databaseProvider}`,
    executesHere,
    start: (agent, input, opts) => mapped(() => startRun(ctx, actor, { agent, input }, { idempotencyKey: opts.idempotencyKey ?? null })),
    runs: (query) => mapped(() => listRuns(ctx.db, actor, query)),
    show,
    checkpoints: (runId, query) => mapped(() => timelinePage(ctx.db, actor, runId, query)),
    inbox: (query) => mapped(() => listInbox(ctx.db, actor, query)),
    decide: (approvalId, body) => mapped(() => decide(ctx, actor, approvalId, body)),
    resume: (runId) => mapped(() => resumeRun(ctx, actor, runId)),
    cancel: (runId) => mapped(() => cancelRun(ctx, actor, runId)),
    retry: (runId) => mapped(() => retryRun(ctx, actor, runId)),
    fork: (runId, seq) => mapped(() => forkRun(ctx, actor, runId, { seq })),
    async wait(runId, timeoutMs) {
      // On SQLite the run executes here: its execution ends when it pauses or ends.
      await ctx.worker.idle();
      return pollUntilSettled(() => show(runId), timeoutMs);
    },
    close: () => closeContext(ctx),
  };
}

// Maintenance on the database itself, as the system (no user): what every instance's background does.
export async function pruneLocal(days: number) {
  const ctx = openContext();
  try {
    return await pruneCheckpoints(ctx.db, { olderThanDays: days });
  } finally {
    await closeContext(ctx);
  }
}

export async function sweepLocal() {
  const ctx = openContext();
  try {
    return await sweep(ctx);
  } finally {
    await closeContext(ctx);
  }
}

export const retentionDays = () => env().AFK_RETENTION_DAYS;
